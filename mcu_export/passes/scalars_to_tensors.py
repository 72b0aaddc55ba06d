"""Turn Python-number operands of arithmetic ops into 0-dim constant tensors.

Core ATen keeps `x + 3` as `add.Tensor(x, 3)` (or `add.Scalar`), but the out-variant kernels take two
tensors. The constant gets the op's result dtype, which is what type promotion would compute with, so
the kernel needs no promotion logic. Equal scalars share one constant.
"""

from __future__ import annotations

from typing import Dict, Tuple

import torch
from torch.export import ExportedProgram

from mcu_export.passes.graph_utils import add_constant, finish

aten = torch.ops.aten

_TENSOR_FORM = {
    aten.add.Tensor: aten.add.Tensor,
    aten.add.Scalar: aten.add.Tensor,
    aten.sub.Tensor: aten.sub.Tensor,
    aten.sub.Scalar: aten.sub.Tensor,
    aten.mul.Tensor: aten.mul.Tensor,
    aten.mul.Scalar: aten.mul.Tensor,
    aten.div.Tensor: aten.div.Tensor,
    aten.div.Scalar: aten.div.Tensor,
}


def _is_number(value) -> bool:
    return isinstance(value, (int, float, bool)) and not isinstance(value, torch.fx.Node)


def scalars_to_tensors(ep: ExportedProgram) -> None:
    graph = ep.graph_module.graph
    cache: Dict[Tuple[type, object, torch.dtype], torch.fx.Node] = {}

    def const(value, dtype) -> torch.fx.Node:
        key = (type(value), value, dtype)
        if key not in cache:
            cache[key] = add_constant(ep, torch.tensor(value, dtype=dtype), "scalar")
        return cache[key]

    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        target = node.target
        if target == aten.rsub.Scalar:  # rsub(x, c, alpha) = c - alpha * x
            dtype = node.meta["val"].dtype
            node.target = aten.sub.Tensor
            node.args = (const(node.args[1], dtype), node.args[0], *node.args[2:])
            continue
        if target not in _TENSOR_FORM:
            continue
        self_arg, other, *rest = node.args
        if not (_is_number(self_arg) or _is_number(other)):
            continue
        dtype = node.meta["val"].dtype
        if _is_number(self_arg):
            self_arg = const(self_arg, dtype)
        if _is_number(other):
            other = const(other, dtype)
        node.target = _TENSOR_FORM[target]
        node.args = (self_arg, other, *rest)
    finish(ep)
