"""The front half in one call: capture → passes → support check → lowering → memory plan."""

from __future__ import annotations

from typing import Callable, Optional, Tuple

from torch import nn

from mcu_export.capture import capture
from mcu_export.lower.channels_last import make_channels_last
from mcu_export.lower.lower import LoweringInfo, lower
from mcu_export.passes import check_supported, run_passes
from mcu_export.planner import plan_memory
from mcu_export.pte.program import Program


def to_program(
    model: nn.Module,
    example_inputs: tuple,
    progress: Optional[Callable[[str], None]] = None,
    overlap: bool = True,
) -> Tuple[Program, LoweringInfo]:
    """A planned Program ready for the writer; `info.memory` holds the MemoryPlan. `overlap=False`: tensors
    apart, for ExecuTorch's runtime (planner.plan_memory)."""
    say = progress or (lambda _message: None)
    say("capturing with torch.export")
    ep = capture(model, example_inputs)
    say("running graph passes")
    run_passes(ep)
    check_supported(ep)
    say("lowering to the .pte program")
    program, info = lower(ep)
    if overlap:  # our kernels' orders only: ExecuTorch's runtime gets NCHW throughout
        make_channels_last(program.method())
    say("planning memory")
    info.memory = plan_memory(program, overlap=overlap, info=info)
    return program, info
