"""The graph passes, run in this order on a captured core-ATen ExportedProgram.

Each pass edits the program in place (graph, signature and weights together) and leaves a valid
program that `ep.module()` can still run.
"""
from __future__ import annotations

from typing import Callable, List

from torch.export import ExportedProgram

from mcu_export.passes.check_supported import check_supported
from mcu_export.passes.decompose_hard_activations import decompose_hard_activations
from mcu_export.passes.fold_batch_norm import fold_batch_norm
from mcu_export.passes.fold_constants import fold_constants
from mcu_export.passes.remove_noops import remove_noops
from mcu_export.passes.scalars_to_tensors import scalars_to_tensors

PASSES: List[Callable[[ExportedProgram], None]] = [
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


def run_passes(ep: ExportedProgram) -> ExportedProgram:
    """Run every pass in order; edits `ep` in place and returns it."""
    for graph_pass in PASSES:
        graph_pass(ep)
    return ep


__all__ = ["PASSES", "run_passes", "check_supported"]
