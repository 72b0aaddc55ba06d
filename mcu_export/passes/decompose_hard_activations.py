"""Write hardswish and hardsigmoid as the portable ops ExecuTorch's runtime has (fp32 path).

ExecuTorch 1.5.1's portable library has no `hardswish.out` or `hardsigmoid.out`, so a .pte naming them
does not load there. Both become one ramp, r = clamp(x + 3, 0, 6), then hardswish = x * r / 6 and
hardsigmoid = r / 6: torch's own formula, so the results are the float32 values torch computes. The four
(three) calls are consecutive and their temporaries single-use; our runtime's loader recognises exactly
this sequence and runs its fused kernel instead (runtime_c/src/fuse_hard_ramp.c).

The int8 path does not run this pass: there the whole activation becomes one lookup table.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

from mcu_export.passes.graph_utils import finish

aten = torch.ops.aten

_TARGETS = (aten.hardswish.default, aten.hardsigmoid.default)


def _decompose(graph: torch.fx.Graph, node: torch.fx.Node) -> None:
    x = node.args[0]

    def call(target, *args):
        new = graph.call_function(target, args)
        new.meta = dict(node.meta)  # same shape, dtype and source line as the activation it replaces
        return new

    with graph.inserting_before(node):
        ramp = call(aten.clamp.default, call(aten.add.Tensor, x, 3.0), 0.0, 6.0)
        if node.target == aten.hardswish.default:
            ramp = call(aten.mul.Tensor, x, ramp)
        result = call(aten.div.Tensor, ramp, 6.0)
    node.replace_all_uses_with(result)
    graph.erase_node(node)


def decompose_hard_activations(ep: ExportedProgram) -> None:
    graph = ep.graph_module.graph
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target in _TARGETS:
            _decompose(graph, node)
    finish(ep)
