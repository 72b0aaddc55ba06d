"""The steps from an nn.Module to a planned Program, in order (capture → passes → check → lower → plan)."""
from __future__ import annotations

from mcu_export.lower import to_program as _lower_to_program


def to_program(model, example_inputs: tuple, progress=None):
    """Returns (program, lowering info, memory plan); see mcu_export.lower.to_program for the steps."""
    program, info = _lower_to_program(model, example_inputs, progress=progress)
    return program, info, info.memory
