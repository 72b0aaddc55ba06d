"""Capture: an `nn.Module` and example inputs to a core-ATen `ExportedProgram`.

Hardswish and hardsigmoid are kept whole (the op table has kernels for them); everything else follows
torch's default core-ATen decompositions, so the graph the passes see is the one ExecuTorch would see.
"""
from __future__ import annotations

import warnings

import torch
from torch import nn

from mcu_export.errors import UsageError

# Ops with a kernel of their own: decomposing them would cost four kernels and three temporaries each.
_KEEP_WHOLE = ("aten.hardswish", "aten.hardsigmoid")


def _decomposition_table() -> dict:
    table = torch.export.default_decompositions()
    for op in list(table):
        if any(str(op).startswith(name + ".") for name in _KEEP_WHOLE):
            del table[op]
    return table


def capture(model: nn.Module, example_inputs: tuple) -> torch.export.ExportedProgram:
    if not isinstance(example_inputs, tuple):
        raise UsageError(f"example inputs must be a tuple, got {type(example_inputs).__name__}")
    model.eval()
    try:
        with warnings.catch_warnings():
            # torch 2.13's own export internals trip this deprecation; it says nothing about the user's model.
            warnings.filterwarnings("ignore", message=r".*LeafSpec.*", category=FutureWarning)
            ep = torch.export.export(model, example_inputs, strict=False)
            return ep.run_decompositions(_decomposition_table())
    except Exception as exc:  # torch raises many types here; the user needs the first line only
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UsageError(f"torch.export failed: {first}") from exc
