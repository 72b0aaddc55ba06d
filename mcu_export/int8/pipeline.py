"""The int8 path in one call: quantize (PT2E) → lower to cortex_m kernels → plan memory."""

from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

from torch import nn

from mcu_export.boards import Board
from mcu_export.ethosu.choice import NpuChoice
from mcu_export.int8.calibrate import CalibrationSource
from mcu_export.int8.lower import lower_int8
from mcu_export.int8.lower.scratch import isas_for
from mcu_export.int8.prepare import QuantizedModel, quantize
from mcu_export.lower.builder import LoweringInfo
from mcu_export.planner import MemoryPlan, plan_memory
from mcu_export.pte.program import Program


def lower_quantized(
    quantized: QuantizedModel,
    board: Optional[Board] = None,
    progress: Optional[Callable[[str], None]] = None,
    npu: Optional[NpuChoice] = None,
    io: str = "float",
) -> Tuple[Program, LoweringInfo, MemoryPlan]:
    say = progress or (lambda _m: None)
    say("lowering to cortex_m int8 kernels" + (f", then to {npu.accelerator} subgraphs" if npu else ""))
    program, info = lower_int8(quantized.ep, board, npu=npu, progress=say, io=io)
    say("planning memory")
    info.memory = plan_memory(program, info=info)
    return program, info, info.memory


def to_int8_program(
    model: nn.Module,
    example_inputs: tuple,
    calibrate: CalibrationSource = None,
    board: Optional[Board] = None,
    progress: Optional[Callable[[str], None]] = None,
    per_channel_linear: bool = True,
    npu: Optional[NpuChoice] = None,
    io: str = "float",
):
    """(program, info, memory plan, quantized model) for `model` in int8; io="int8": int8 inputs and outputs."""
    quantized = quantize(model, example_inputs, calibrate, progress, per_channel_linear)
    program, info, plan = lower_quantized(quantized, board, progress, npu, io)
    return program, info, plan, quantized


def int8_report(info: LoweringInfo, quantized: QuantizedModel, board: Optional[Board], npu=None, io="float") -> Dict:
    return {
        "backend": npu.accelerator if npu is not None else "cortex-m",
        "fallbacks": list(info.fallbacks),
        "calibration_batches": quantized.calibration_batches,
        "warnings": list(quantized.warnings),
        "board": board.name if board else None,  # None: scratch sized for the scalar, DSP and MVE kernels
        "scratch_sized_for": list(isas_for(board)),
        "io": io,  # "int8": the program takes and returns int8 (inputs[k].quantization, outputs[k].quantization)
    }
