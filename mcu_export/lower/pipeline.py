"""The front half in one call: capture → passes → support check → lowering → memory plan."""
from __future__ import annotations

from typing import Tuple

from torch import nn

from mcu_export.capture import capture
from mcu_export.lower.lower import LoweringInfo, lower
from mcu_export.passes import check_supported, run_passes
from mcu_export.planner import plan_memory
from mcu_export.pte.program import Program


def to_program(model: nn.Module, example_inputs: tuple) -> Tuple[Program, LoweringInfo]:
    """A planned Program ready for the writer; `info.memory` holds the memory plan."""
    ep = run_passes(capture(model, example_inputs))
    check_supported(ep)
    program, info = lower(ep)
    info.memory = plan_memory(program)
    return program, info
