"""Remove calls that compute nothing on a contiguous, static-shape graph.

clone/alias/detach/dropout(eval) return their input's values; `_to_copy` to the same dtype and
`expand` to the same shape change nothing either. Our tensors are always contiguous, so a clone whose
purpose is a memory format is a no-op too. Shape/metadata asserts have no users and no effect at run
time. Each removed node's users read its input instead.

`remove_noops_keeping_layout` is the variant for a graph that torch still runs (the int8 path's graph
before PT2E prepare, which calibration runs eagerly): there a clone that makes a permuted (non-contiguous)
value contiguous is what lets the `view` after it run, so it stays; the int8 lowering treats it as a copy
that shares its input's quantization, and the list after convert removes it.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

from mcu_export.passes.graph_utils import finish

aten = torch.ops.aten

_IDENTITY = {
    aten.clone.default,
    aten.alias.default,
    aten.detach.default,
    aten.lift_fresh_copy.default,
    aten.contiguous.default,
}
_ASSERTS = {
    aten._assert_tensor_metadata.default,
    aten._assert_async.msg,
    aten._assert_scalar.default,
    aten.sym_constrain_range_for_size.default,
    aten.sym_constrain_range.default,
}


def _val(node):
    return node.meta.get("val") if isinstance(node, torch.fx.Node) else None


def _same_meta(a, b) -> bool:
    va, vb = _val(a), _val(b)
    return (
        isinstance(va, torch.Tensor)
        and isinstance(vb, torch.Tensor)
        and va.dtype == vb.dtype
        and tuple(va.shape) == tuple(vb.shape)
    )


def _makes_contiguous(node) -> bool:
    """A clone/contiguous whose input is laid out otherwise than its output (e.g. after a permute)."""
    before, after = _val(node.args[0]), _val(node)
    return (
        isinstance(before, torch.Tensor)
        and isinstance(after, torch.Tensor)
        and before.is_contiguous() != after.is_contiguous()
    )


def _is_noop(node, keep_layout: bool = False) -> bool:
    target = node.target
    if target in _IDENTITY:
        return not (keep_layout and _makes_contiguous(node))
    if target == aten.dropout.default:  # (input, p, train): eval-mode dropout passes its input through
        return not (node.args[2] if len(node.args) > 2 else node.kwargs.get("train", True))
    if target in (aten._to_copy.default, aten.expand.default, aten.expand_copy.default):
        return _same_meta(node, node.args[0])
    return False


def remove_noops(ep: ExportedProgram) -> None:
    _remove(ep, keep_layout=False)


def remove_noops_keeping_layout(ep: ExportedProgram) -> None:
    _remove(ep, keep_layout=True)


def _remove(ep: ExportedProgram, keep_layout: bool) -> None:
    graph = ep.graph_module.graph
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        if node.target in _ASSERTS and not node.users:
            graph.erase_node(node)
        elif _is_noop(node, keep_layout):
            node.replace_all_uses_with(node.args[0])
            graph.erase_node(node)
    finish(ep)
