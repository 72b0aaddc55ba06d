"""LayerNorm over the last dims as cortex_m::quantized_layer_norm (integer arithmetic:
mcu_export/int8/reference/layer_norm.py)."""

from __future__ import annotations

import math
import operator

import numpy as np
import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import Refusal, terminal
from mcu_export.int8.reference.layer_norm import MAX_EPSILON, MAX_NORMALIZED, layer_norm_params


def _float_constant(lw, node):
    if node is None:
        return None
    data = lw.constant_of(node)
    if data is None and (match.is_dq(node) or match.is_dq_channel(node)):
        args = [lw.constant_of(a) if isinstance(a, Node) else a for a in node.args]
        data = node.target(*args) if all(a is not None for a in args) else None
    if data is None or not data.is_floating_point():
        raise Refusal("its weight or bias is not a constant")
    return data.double().numpy()


def lower_layer_norm(lw, node: Node) -> None:
    x, normalized_shape = node.args[0], list(node.args[1])
    weight = node.args[2] if len(node.args) > 2 else None
    bias = node.args[3] if len(node.args) > 3 else None
    eps = float(node.args[4]) if len(node.args) > 4 else 1e-5
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("its input is not int8")
    users = list(node.users)
    normalized = [u for u in users if u.target == operator.getitem and u.args[1] == 0]
    if len(normalized) != 1 or len(users) != 1:
        raise Refusal("its mean or rstd output is used")
    _, _, quantizers = terminal(normalized[0], fuse=False)
    out = match.qparams(quantizers[0])
    n = math.prod(normalized_shape)
    if n > MAX_NORMALIZED:
        raise Refusal(f"normalizes {n} values per row (the int8 kernel takes up to {MAX_NORMALIZED})")
    p = layer_norm_params(_float_constant(lw, weight), _float_constant(lw, bias), n, eps, qx.scale, out.scale)
    if not 0 <= p["epsilon"] <= MAX_EPSILON or p["multiplier"] == 0:
        raise Refusal("epsilon or the output scale is out of the int8 kernel's range")
    qx = lw.to_layout(qx, False)
    result = lw.new_tensor(torch.int8, lw.shape(x))
    lw.call(
        cortex_m_op("quantized_layer_norm"),
        dict(
            input=T(qx.index),
            weight=T(lw.const(torch.from_numpy(np.ascontiguousarray(p["weight"])))),
            bias=T(lw.const(torch.from_numpy(np.ascontiguousarray(p["bias"])))),
            epsilon=p["epsilon"],
            output_zero_point=out.zp,
            output_multiplier=p["multiplier"],
            output_shift=p["shift"],
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, False), [node, normalized[0]])
