"""add, sub, rsub, mul and div of an int8 value and a constant that holds one value (`1 - z` in a GRU cell,
attention's `scores * scale`, `x / 4`) as one cortex_m::quantized_activation: the table of quantize(f(dequantize(q))) where f is
the node's own torch operator (and a folded relu-like) applied in float32 with the constant dequantized, as
the fake-quantized graph computes it, rather than a two-operand kernel reading a tensor of copies."""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np
import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import terminal
from mcu_export.int8.quantizer import constant_bounds
from mcu_export.int8.reference.lut import build_lut

aten = torch.ops.aten
qd = torch.ops.quantized_decomposed


def _one_value(lw, operand) -> Optional[torch.Tensor]:
    """The constant operand as a 0-d float32 tensor, if it holds a single value (dequantized as the graph does)."""
    if isinstance(operand, (int, float)) and not isinstance(operand, bool):
        return torch.tensor(float(operand), dtype=torch.float32)
    if not match.is_dq(operand):
        data = lw.constant_of(operand) if isinstance(operand, Node) else None
        if data is None or not data.is_floating_point() or data.numel() == 0:
            return None
        flat = data.flatten().to(torch.float32)
        return flat[0].reshape(()) if bool((flat == flat[0]).all()) else None
    data = lw.constant_of(operand.args[0])
    if data is None or data.dtype != torch.int8 or data.numel() == 0 or not bool((data == data.flatten()[0]).all()):
        return None
    return qd.dequantize_per_tensor(data.flatten()[:1], *operand.args[1:]).reshape(())


def _split(lw, node: Node) -> Optional[Tuple[int, torch.Tensor]]:
    """(position of the int8 operand, the constant's value), or None when the node is not of that form."""
    for pos in (0, 1):
        value = _one_value(lw, node.args[1 - pos])
        if value is not None and isinstance(node.args[pos], Node) and lw.qinput(node.args[pos]) is not None:
            return pos, value
    return None


def lower_scalar_table(lw, node: Node, split: Tuple[int, torch.Tensor]) -> None:
    pos, value = split
    x = node.args[pos]
    qx = lw.qinput(x)
    # The quantizer folds a following relu-like into add and sub only (their output is observed after it).
    last, act, quantizers = terminal(node, fuse=node.target in (aten.add.Tensor, aten.sub.Tensor))
    out = match.qparams(quantizers[0])
    bounds = constant_bounds(act) if act is not None else (None, None)

    other = float(value) if node.target == aten.rsub.Scalar else value  # its `other` is a Scalar, not a tensor

    def fn(v: np.ndarray) -> np.ndarray:
        args = [torch.from_numpy(v), other] if pos == 0 else [other, torch.from_numpy(v)]
        y = node.target(*args, **node.kwargs)
        return torch.clamp(y, *bounds).numpy() if act is not None else y.numpy()

    lut = build_lut(fn, qx.scale, qx.zp, out.scale, out.zp)
    result = lw.new_tensor(torch.int8, lw.shape(last), qx.cl)
    lw.call(
        cortex_m_op("quantized_activation"), dict(input=T(qx.index), lut=T(lw.const(torch.from_numpy(lut)))), [result]
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, qx.cl), [node] + ([act] if act else []))


def scalar_split(lw, node: Node) -> Optional[Tuple[int, torch.Tensor]]:
    """(position of the int8 operand, the constant's value) when `node` is a table of its int8 operand: the other
    operand holds one value and does not broadcast the int8 one up; else None (two int8 operands)."""
    split = _split(lw, node) if node.kwargs.get("alpha", 1) == 1 else None
    if split is None or list(lw.shape(node.args[split[0]])) != list(lw.shape(node)):
        return None
    return split
