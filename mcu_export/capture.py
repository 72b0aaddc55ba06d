"""Capture: an `nn.Module` and example inputs to a core-ATen `ExportedProgram`.

Hardswish and hardsigmoid are kept whole: the int8 path turns each into one lookup table, and the fp32
passes write them in the form our loader fuses back (passes/decompose_hard_activations.py). Everything
else follows torch's default core-ATen decompositions, so the graph the passes see is the one ExecuTorch
would see.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import Callable, Iterator

import torch
from torch import nn

from mcu_export.errors import UsageError

# Decomposed here, they would reach the int8 quantizer as four observed ops instead of one table lookup.
_KEEP_WHOLE = ("aten.hardswish", "aten.hardsigmoid")


def _decomposition_table() -> dict:
    table = torch.export.default_decompositions()
    for op in list(table):
        if any(str(op).startswith(name + ".") for name in _KEEP_WHOLE):
            del table[op]
    return table


def capture(model: nn.Module, example_inputs: tuple) -> torch.export.ExportedProgram:
    return export_decomposed(model, example_inputs, _decomposition_table, eval_mode=True)


def export_decomposed(
    model: nn.Module, example_inputs: tuple, decompositions: Callable[[], dict], *, eval_mode: bool
) -> torch.export.ExportedProgram:
    """torch.export, then the decompositions `decompositions()` returns; eval_mode=False keeps the model's
    train/eval mode as it is."""
    if not isinstance(example_inputs, tuple):
        raise UsageError(f"example inputs must be a tuple, got {type(example_inputs).__name__}")
    if eval_mode:
        model.eval()
    with export_errors():
        ep = torch.export.export(model, example_inputs, strict=False)
        return ep.run_decompositions(decompositions())


@contextmanager
def export_errors() -> Iterator[None]:
    """Around torch.export calls: any failure becomes one UsageError line."""
    try:
        with warnings.catch_warnings():
            # torch 2.13's own export internals trip this deprecation; it says nothing about the user's model.
            warnings.filterwarnings("ignore", message=r".*LeafSpec.*", category=FutureWarning)
            yield
    except Exception as exc:  # torch raises many types here; the user needs the first line only
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UsageError(f"torch.export failed: {first}") from exc
