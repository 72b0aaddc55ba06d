"""PReLU as torch.export writes it, `where(x > 0, x, weight * x)`, in int8: one weight as one
cortex_m::quantized_activation (a table of the float pattern on the 256 dequantized inputs, as the
fake-quantized graph computes it), one weight per channel as cortex_m::quantized_prelu (two requantizations,
int8/reference/prelu.py). The pattern's first node in graph order (the weight's view, gt or mul) lowers
it whole; the quantizer observes only x and the where's output (quantizer_extra.prelu_parts)."""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np
import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import Refusal, terminal
from mcu_export.int8.quantizer_extra import prelu_parts, same_value
from mcu_export.int8.reference.lut import build_lut
from mcu_export.int8.reference.prelu import prelu_multiplier

aten = torch.ops.aten


def prelu_where(node: Node) -> Optional[Node]:
    """The where of the PReLU pattern `node` belongs to (as its where, gt, mul or a weight view), or None."""
    current = node
    for _ in range(6):
        if current.target == aten.where.self:
            parts = prelu_parts(current)
            return current if parts is not None and (node is current or node in parts) else None
        if len(current.users) != 1:
            return None
        current = next(iter(current.users))
    return None


def lower_prelu(lw, where: Node) -> None:
    parts = prelu_parts(where)
    if parts is None:
        raise Refusal("not PReLU's where(x > 0, x, weight * x)")
    mul = parts[1]
    x = where.args[1]
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("PReLU's input is not int8")
    weight_node = mul.args[0] if same_value(mul.args[1], x) else mul.args[1]
    slopes = _slopes(lw, parts, weight_node)
    _, _, quantizers = terminal(where, fuse=False)
    out = match.qparams(quantizers[0])
    shape = lw.shape(x)
    broadcast = list(weight_node.meta["val"].shape)
    if slopes.numel() == 1:
        slope = slopes.reshape(())

        def fn(v: np.ndarray) -> np.ndarray:
            t = torch.from_numpy(v)
            return torch.where(t > 0, t, slope * t).numpy()  # the order torch.export writes it

        lut = build_lut(fn, qx.scale, qx.zp, out.scale, out.zp)
        result = lw.new_tensor(torch.int8, lw.shape(where), qx.cl)
        lw.call(
            cortex_m_op("quantized_activation"),
            dict(input=T(qx.index), lut=T(lw.const(torch.from_numpy(lut)))),
            [result],
        )
    else:
        channel_dim = _channel_dim(shape, broadcast)
        mult, shift = prelu_multiplier(qx.scale / out.scale)
        negative = [prelu_multiplier(qx.scale * float(s) / out.scale) for s in slopes.double().flatten()]
        if any(not -31 <= sh <= 31 for _, sh in negative) or not -31 <= shift <= 31:
            raise Refusal("PReLU's rescale is out of the kernel's shift range")
        result = lw.new_tensor(torch.int8, lw.shape(where), qx.cl)
        lw.call(
            cortex_m_op("quantized_prelu"),
            dict(
                input=T(qx.index),
                channel_dim=channel_dim,
                input_zero_point=qx.zp,
                output_zero_point=out.zp,
                positive_multiplier=mult,
                positive_shift=shift,
                negative_multipliers=T(lw.const(torch.tensor([m for m, _ in negative], dtype=torch.int32))),
                negative_shifts=T(lw.const(torch.tensor([s for _, s in negative], dtype=torch.int32))),
            ),
            [result],
        )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, qx.cl), [where, *parts])


def _slopes(lw, parts, weight_node: Node) -> torch.Tensor:
    """The float slopes behind the weight operand (a constant, or views of one)."""
    source = weight_node
    while source in parts:
        source = source.args[0]
    data = lw.constant_of(source)
    if data is None or not data.is_floating_point():
        raise Refusal("PReLU's weight is not a constant float tensor")
    return data.detach().to(torch.float32).flatten()


def _channel_dim(shape, broadcast) -> int:
    """The one dim of x the weight varies along (its shape aligned to x's from the right)."""
    offset = len(shape) - len(broadcast)
    dims = [offset + i for i, n in enumerate(broadcast) if n != 1]
    if offset < 0 or len(dims) != 1 or shape[dims[0]] != broadcast[dims[0] - offset]:
        raise Refusal(f"PReLU's weight of shape {broadcast} does not run along one dim of {shape}")
    return dims[0]


def prelu_or(rule: Optional[Callable]) -> Callable:
    """`rule` for `node`, unless node is part of a PReLU pattern, which is then lowered whole."""

    def lower(lw, node: Node) -> None:
        where = prelu_where(node)
        if where is not None:
            return lower_prelu(lw, where)
        if rule is None:
            raise Refusal(f"no int8 kernel for {node.target}")
        return rule(lw, node)

    return lower
