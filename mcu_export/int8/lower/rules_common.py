"""Pieces the int8 lowering rules share: where a pattern's output goes, folded activation bounds,
weights and biases read back from the converted graph's constants."""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np
import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.quantizer import constant_bounds, fused_activation
from mcu_export.lower.backend import Refusal  # a rule raises it to refuse a node, with the reason

__all__ = ["Refusal", "terminal", "activation_range", "weight", "bias"]


def terminal(node: Node, fuse: bool = True) -> Tuple[Node, Optional[Node], List[Node]]:
    """(last node of the pattern, folded activation or None, the quantize nodes reading its result)."""
    act = fused_activation(node) if fuse else None
    last = act if act is not None else node
    quantizers = match.output_quantizers(last)
    if quantizers is None:
        raise Refusal("its output is not quantized to int8")
    return last, act, quantizers


def activation_range(act: Optional[Node], out: match.QParams) -> Tuple[int, int]:
    """A folded relu/relu6/hardtanh/clamp as the kernel's output clamp, in the output's int8 domain."""
    if act is None:
        return -128, 127
    lo, hi = constant_bounds(act)
    return (-128 if lo is None else match.quantize_value(lo, out), 127 if hi is None else match.quantize_value(hi, out))


def weight(lw, node, channels: int, axis: int = 0) -> Tuple[torch.Tensor, np.ndarray]:
    """(int8 weight, float64 scale per output channel) of a dequantized constant weight (zero points 0); `axis`:
    the output-channel axis a per-channel weight must be quantized along."""
    if match.is_dq_channel(node):
        data, scales, zps = (lw.constant_of(a) for a in node.args[:3])
        if data is None or scales is None or data.dtype != torch.int8 or node.args[3] != axis:
            raise Refusal(f"its weight is not a constant int8 tensor quantized along axis {axis}")
        if zps is not None and bool((zps != 0).any()):
            raise Refusal("its weight is not symmetrically quantized")
        return data, scales.double().numpy()
    if match.is_dq(node):
        data = lw.constant_of(node.args[0])
        if data is None or data.dtype != torch.int8 or int(node.args[2]) != 0:
            raise Refusal("its weight is not a constant symmetric int8 tensor")
        return data, np.full(channels, float(node.args[1]))
    raise Refusal("its weight is not quantized")


def bias(lw, node, input_scale: float, weight_scales: np.ndarray) -> Optional[torch.Tensor]:
    """int32 bias at scale input_scale * weight_scale (the quantizer's derived spec), or None."""
    if node is None:
        return None
    if match.is_dq_channel(node) or match.is_dq(node):
        data = lw.constant_of(node.args[0])
        if data is not None and data.dtype == torch.int32:
            return data
    data = lw.constant_of(node)
    if data is None or not data.is_floating_point():
        raise Refusal("its bias is not a constant")
    # An unobserved float bias: quantize it the way the derived spec would have.
    q = np.round(data.double().numpy() / (input_scale * weight_scales))
    return torch.from_numpy(np.clip(q, -(1 << 31), (1 << 31) - 1).astype(np.int32))
