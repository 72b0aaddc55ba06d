"""softmax and table-lookup activations as cortex_m int8 kernels (add, sub, mul, div, minimum and maximum:
rules_broadcast.py)."""

from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import Refusal, terminal
from mcu_export.int8.quantizer import constant_bounds
from mcu_export.int8.reference.lut import FUNCTIONS, build_lut
from mcu_export.int8.reference.softmax import MAX_ROW, softmax_params

aten = torch.ops.aten


def lower_softmax(lw, node: Node) -> None:
    x, dim = node.args[0], node.args[1]
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("its input is not int8")
    rank = len(lw.shape(x))
    if dim % rank != rank - 1:
        raise Refusal("softmax over a dimension other than the last")
    if lw.shape(x)[-1] > MAX_ROW:
        raise Refusal(f"softmax over more than {MAX_ROW} values")
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    if abs(out.scale - 1.0 / 256) > 1e-12 or out.zp != -128:
        raise Refusal("softmax output is not quantized at 1/256, -128")
    mult, shift, diff_min = softmax_params(qx.scale)
    qx = lw.to_layout(qx, False)
    result = lw.new_tensor(torch.int8, lw.shape(node))
    lw.call(
        cortex_m_op("softmax"),
        dict(
            input=T(qx.index),
            dim=rank - 1,
            input_zero_point=qx.zp,
            output_zero_point=out.zp,
            input_multiplier=mult,
            input_shift=shift,
            diff_min=diff_min,
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, False), [node])


def _float_function(node: Node):
    t = node.target
    if t in (aten.sigmoid.default,):
        return FUNCTIONS["sigmoid"]
    if t in (aten.tanh.default,):
        return FUNCTIONS["tanh"]
    if t in (aten.hardswish.default, aten.hardswish_.default):
        return FUNCTIONS["hardswish"]
    if t in (aten.hardsigmoid.default, aten.hardsigmoid_.default):
        return lambda x: np.clip(x / np.float32(6.0) + np.float32(0.5), 0.0, 1.0).astype(np.float32)
    bounds = constant_bounds(node)
    if bounds is None:
        return None
    lo, hi = bounds
    return lambda x: np.clip(x, -np.inf if lo is None else lo, np.inf if hi is None else hi).astype(np.float32)


def lower_lut(lw, node: Node) -> None:
    fn = _float_function(node)
    if fn is None:
        raise Refusal("activation bounds are not constants")
    qx = lw.qinput(node.args[0])
    if qx is None:
        raise Refusal("its input is not int8")
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    lut = build_lut(fn, qx.scale, qx.zp, out.scale, out.zp)
    result = lw.new_tensor(torch.int8, lw.shape(node), qx.cl)
    lw.call(
        cortex_m_op("quantized_activation"), dict(input=T(qx.index), lut=T(lw.const(torch.from_numpy(lut)))), [result]
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, qx.cl), [node])
