"""Recognising the quantize/dequantize nodes that convert_pt2e puts around float ops."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

import torch
from torch.fx import Node

qd = torch.ops.quantized_decomposed


def is_q(node) -> bool:
    return isinstance(node, Node) and node.op == "call_function" and node.target == qd.quantize_per_tensor.default


def is_dq(node) -> bool:
    return isinstance(node, Node) and node.op == "call_function" and node.target == qd.dequantize_per_tensor.default


def is_dq_channel(node) -> bool:
    return isinstance(node, Node) and node.op == "call_function" and node.target == qd.dequantize_per_channel.default


def is_int8_qdq(node: Node) -> bool:
    """A per-tensor (de)quantize of int8 over the full [-128, 127] range: what the int8 kernels take."""
    return node.args[5] == torch.int8 and node.args[3] == -128 and node.args[4] == 127


@dataclass(frozen=True)
class QParams:
    scale: float
    zp: int


def qparams(node: Node) -> QParams:
    return QParams(float(node.args[1]), int(node.args[2]))


def output_quantizers(last: Node) -> Optional[List[Node]]:
    """The quantize nodes that take `last`'s value, if they are its only users and agree on parameters."""
    users = list(last.users)
    if not users or not all(is_q(u) and is_int8_qdq(u) for u in users):
        return None
    if len({qparams(u) for u in users}) != 1:
        return None
    return users


def quantize_value(value: float, q: QParams, lo: int = -128, hi: int = 127) -> int:
    """round-half-even(value / scale) + zp, clamped: how the fake-quantized graph quantizes a bound."""
    return int(min(max(torch.round(torch.tensor(value / q.scale, dtype=torch.float64)).item() + q.zp, lo), hi))
