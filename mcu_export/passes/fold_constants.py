"""Evaluate at export time the calls whose tensor inputs are all constants.

`nn.Linear` exports as `addmm(bias, x, permute(weight))`: without folding, the transposed weight would
be recomputed on every inference into a planned tensor as large as the weight. Calls without tensor
inputs (`torch.zeros(...)` in forward) fold too; random ones never do. Results much larger
than their inputs (an `expand` of a small constant) stay as calls, so flash does not grow.
"""

from __future__ import annotations

import operator

import torch
from torch.export import ExportedProgram
from torch.fx.node import map_arg

from mcu_export.passes.graph_utils import add_constant, constant_value, finish

_GROWTH_LIMIT = 2  # a folded result may be at most this many times the bytes of its inputs (+4 KiB)


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _fold(ep: ExportedProgram, foldable) -> None:
    graph = ep.graph_module.graph
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target == operator.getitem:
            continue
        if (
            not isinstance(node.target, torch._ops.OpOverload)
            or torch.Tag.nondeterministic_seeded in node.target.tags
            or not foldable(node.target)
        ):
            continue
        # Calls without inputs (torch.zeros, torch.arange in forward) are constants too.
        inputs = node.all_input_nodes
        values = {n: constant_value(ep, n) for n in inputs}
        if any(v is None for v in values.values()):
            continue
        args = map_arg(node.args, lambda n: values[n])  # noqa: B023 (map_arg calls it at once)
        kwargs = map_arg(node.kwargs, lambda n: values[n])  # noqa: B023
        with torch.no_grad():
            result = node.target(*args, **kwargs)
        if not isinstance(result, torch.Tensor):
            continue
        if _nbytes(result) > _GROWTH_LIMIT * sum(_nbytes(v) for v in values.values()) + 4096:
            continue
        with graph.inserting_before(node):
            folded = add_constant(ep, result.clone(), "folded")
        node.replace_all_uses_with(folded)
        graph.erase_node(node)
    finish(ep)


def fold_constants(ep: ExportedProgram) -> None:
    _fold(ep, lambda target: True)


def fold_float_constants(ep: ExportedProgram) -> None:
    """After PT2E convert: folds the float arithmetic on constants that QAT's conv-BN folding leaves
    (var + eps, rsqrt, ...), never a quantize/dequantize: the int8 lowering reads the int8 weight behind
    each dequantize."""
    _fold(ep, lambda target: target.namespace != "quantized_decomposed")
