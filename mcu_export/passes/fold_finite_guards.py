"""Fold the guards an int8 program can never trip: tests for inf or NaN on a dequantized value.

torch's attention (`F.scaled_dot_product_attention`, `nn.MultiheadAttention`) decomposes into a guard for
fully masked rows around its softmax: `where(~any(~(scores == -inf), -1), zeros_like(p), p)`. A dequantized
int8 value is `scale * (q - zero_point)`: always finite. So on the int8 program `scores == -inf` is false
everywhere, the whole chain of bool ops folds to one known value, and the `where` is its chosen operand: the
guard costs no kernel and leaves no fp32 fallback. The fp32 program keeps it (there a score may be -inf) and
runs it on the bool kernels.

What folds: `eq`/`ne` of a dequantize output with a non-finite number; `logical_not`, `any` over dims and
`all` of a folded value; `where` whose condition folded, when the chosen operand already has the result's
shape and dtype (no broadcast left to do). Anything else is left as it was.
"""

from __future__ import annotations

import math
from typing import Dict, Optional

import torch
from torch.export import ExportedProgram
from torch.fx import Node

from mcu_export.passes.graph_utils import finish

aten = torch.ops.aten
_DEQUANTIZE = "quantized_decomposed.dequantize_per_tensor"
_ANY = {aten.any.dim, aten.any.dims, aten.any.default, aten.all.dim, aten.all.dims, aten.all.default}


def _dequantized(node) -> bool:
    return isinstance(node, Node) and str(node.target).startswith(_DEQUANTIZE)


def _non_finite(value) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def _known(node: Node, known: Dict[Node, bool]) -> Optional[bool]:
    """The one value every element of `node` has, when the guard arithmetic decides it."""
    target, args = node.target, node.args
    if target in (aten.eq.Scalar, aten.ne.Scalar) and _dequantized(args[0]) and _non_finite(args[1]):
        return target == aten.ne.Scalar  # a finite value equals no inf and no NaN
    source = args[0] if args else None
    if not isinstance(source, Node) or source not in known:
        return None
    if target == aten.logical_not.default:
        return not known[source]
    if target in _ANY:  # every element the same: any and all over any dims are that value
        return known[source]
    return None


def _same_meta(a, b) -> bool:
    va, vb = a.meta.get("val"), b.meta.get("val")
    return (
        isinstance(va, torch.Tensor)
        and isinstance(vb, torch.Tensor)
        and va.dtype == vb.dtype
        and tuple(va.shape) == tuple(vb.shape)
    )


def fold_finite_guards(ep: ExportedProgram) -> None:
    graph = ep.graph_module.graph
    known: Dict[Node, bool] = {}
    changed = False
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        value = _known(node, known)
        if value is not None:
            known[node] = value
            continue
        if node.target == aten.where.self and node.args[0] in known:
            chosen = node.args[1] if known[node.args[0]] else node.args[2]
            if isinstance(chosen, Node) and _same_meta(chosen, node):
                node.replace_all_uses_with(chosen)
                graph.erase_node(node)
                changed = True
    if changed:
        graph.eliminate_dead_code()
        finish(ep)
