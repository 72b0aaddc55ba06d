"""The graph passes and the ordered lists they run in, one list per point in the pipeline.

Each pass edits the program in place (graph, signature and weights together) and leaves a valid
program that `ep.module()` can still run. Each list says, next to a pass, why it sits where it does.
"""

from __future__ import annotations

from typing import Callable, List, Sequence

from torch.export import ExportedProgram

from mcu_export.passes.check_supported import check_supported
from mcu_export.passes.decompose_hard_activations import decompose_hard_activations
from mcu_export.passes.fold_batch_norm import fold_batch_norm, fold_linear_batch_norm
from mcu_export.passes.fold_constants import fold_constants, fold_float_constants
from mcu_export.passes.fold_finite_guards import fold_finite_guards
from mcu_export.passes.remove_noops import remove_noops, remove_noops_keeping_layout
from mcu_export.passes.scalars_to_tensors import scalars_to_tensors

Pass = Callable[[ExportedProgram], None]

# fp32: the captured core-ATen program, before the support check and the lowering.
PASSES: List[Pass] = [
    # First: clones/detaches between a conv and its BN would hide the pattern from the BN fold, and
    # asserts would count as users.
    remove_noops,
    # Before constant folding, which would otherwise see the BN as a generic op on a non-constant input
    # and leave it; the fold creates constant weights that the next passes may use.
    fold_batch_norm,
    # Before scalars_to_tensors, which turns the decomposition's 3 and 6 into constant tensors.
    decompose_hard_activations,
    # Before constant folding, so that arithmetic between two constants (a scalar and a weight) folds.
    scalars_to_tensors,
    # Last: folds what the passes above exposed (e.g. Linear's permuted weight).
    fold_constants,
]

# int8, before PT2E prepare: the graph the quantizer observes (linear kept whole). No hardswish
# decomposition: the int8 lowering makes each hard activation one lookup table.
PRE_QUANT_PASSES: List[Pass] = [
    # First, as in the fp32 list: clones would hide conv -> BN. Calibration runs this graph in torch, so the
    # clones that make a permuted value contiguous for the view after it stay.
    remove_noops_keeping_layout,
    # Both BN folds before prepare: the folded weights are the tensors that get observed and quantized.
    fold_batch_norm,
    fold_linear_batch_norm,
    # x + 3 -> add(x, const): the constant gets observed like any operand.
    scalars_to_tensors,
    # Last: folds what the passes above exposed.
    fold_constants,
]

# int8, on the program captured again after PT2E convert (quantize/dequantize around float ops).
POST_QUANT_PASSES: List[Pass] = [
    # First, as in the other lists: clones and asserts from the re-capture would count as users and
    # hide the patterns the int8 lowering matches.
    remove_noops,
    # After convert, where the guard's scores are dequantized (finite) values: the attention's masked-row guard
    # folds away before its bool ops reach the lowering. Before the constant fold: zeros_like it leaves unused.
    fold_finite_guards,
    # Before the fold, so that arithmetic between two constants folds.
    scalars_to_tensors,
    # Last, and the float-only fold: a dequantized weight must stay a dequantize of int8 data.
    fold_float_constants,
]


def run_passes(ep: ExportedProgram, passes: Sequence[Pass] = PASSES) -> ExportedProgram:
    """Run `passes` (the fp32 list unless given) in order; edits `ep` in place and returns it."""
    for graph_pass in passes:
        graph_pass(ep)
    return ep


__all__ = ["PASSES", "PRE_QUANT_PASSES", "POST_QUANT_PASSES", "run_passes", "check_supported"]
