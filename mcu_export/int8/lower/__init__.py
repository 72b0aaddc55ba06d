"""Lowering of a PT2E-converted core-ATen graph to a `.pte` Program of cortex_m int8 kernels.

`lower_int8(ep, board)` returns the Program (planned tensors not yet placed) and its Int8Info, whose
`fallbacks` list every op left on an fp32 kernel, with its source line and the reason.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

import torch
from torch.export import ExportedProgram
from torch.fx import Node

from mcu_export.boards import Board
from mcu_export.int8.lower.emitter import Int8Info, Int8Lowering
from mcu_export.int8.lower.rules_common import Decline
from mcu_export.int8.lower import rules_elementwise as ew
from mcu_export.int8.lower import rules_layout as lay
from mcu_export.int8.lower import rules_weighted as wt
from mcu_export.int8.quantizer import FUSABLE_ACTIVATIONS
from mcu_export.pte import program as pte

aten = torch.ops.aten

_RULES: Dict[object, Callable] = {
    aten.convolution.default: wt.lower_conv,
    aten.linear.default: wt.lower_linear,
    aten.add.Tensor: ew.lower_add, aten.sub.Tensor: ew.lower_add,
    aten.mul.Tensor: ew.lower_mul,
    aten._softmax.default: ew.lower_softmax,
    aten.max_pool2d_with_indices.default: lay.lower_max_pool,
    aten.avg_pool2d.default: lay.lower_avg_pool,
    aten._adaptive_avg_pool2d.default: lay.lower_adaptive_avg_pool,
    aten.mean.dim: lay.lower_mean,
    aten.permute.default: lay.lower_permute, aten.permute_copy.default: lay.lower_permute,
    aten.constant_pad_nd.default: lay.lower_pad,
    aten.cat.default: lay.lower_cat,
}
for _t in (aten.view.default, aten.view_copy.default, aten._unsafe_view.default, aten.reshape.default,
           aten.squeeze.dim, aten.squeeze.dims, aten.unsqueeze.default):
    _RULES[_t] = lay.lower_view
for _t in (aten.sigmoid.default, aten.tanh.default, aten.hardswish.default, aten.hardsigmoid.default,
           *FUSABLE_ACTIVATIONS):
    _RULES[_t] = ew.lower_lut


def _guarded(rule: Callable) -> Callable[[Int8Lowering, Node], Optional[str]]:
    def run(lw: Int8Lowering, node: Node) -> Optional[str]:
        try:
            rule(lw, node)
        except Decline as why:
            return str(why)
        return None
    return run


RULES = {target: _guarded(rule) for target, rule in _RULES.items()}


def lower_int8(ep: ExportedProgram, board: Optional[Board] = None,
               with_stacktrace: bool = True) -> Tuple[pte.Program, Int8Info]:
    for spec in ep.graph_signature.output_specs:
        if spec.kind.name != "USER_OUTPUT":
            raise ValueError(f"model output {spec.arg} is a {spec.kind.name.lower()}")
    lowering = Int8Lowering(ep, board, with_stacktrace)
    program = lowering.run(RULES)
    return program, lowering.info


__all__ = ["lower_int8", "Int8Info", "RULES"]
