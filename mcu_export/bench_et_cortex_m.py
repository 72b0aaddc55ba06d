"""ExecuTorch's own Cortex-M int8 flow (executorch.backends.cortex_m, ExecuTorch 1.5.1) on a model: the program it
writes, to compare mcu-export's int8 memory plan with (`make bench`) and to feed interop tests.

The flow is the one `executorch/backends/arm/scripts/aot_arm_compiler.py` runs for Cortex-M (legacy layout): model
and inputs channels-last -> torch.export -> prepare_pt2e(CortexMQuantizer) -> calibration -> convert_pt2e ->
torch.export -> to_edge_transform_and_lower(cortex_m_edge_compile_config()) -> CortexMPassManager(target) ->
to_executorch(extract_delegate_segments=False). ExecuTorch plans memory with its default greedy planner; its
planned bytes are the sum of the program's non_const_buffer_sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, List, Optional

import torch


def channels_last(x: torch.Tensor) -> torch.Tensor:
    return x.to(memory_format=torch.channels_last) if x.dim() == 4 else x


@dataclass
class EtCortexMProgram:
    pte: bytes
    converted: torch.nn.Module  # the PT2E-converted module: its outputs are the expected numbers
    edge_ops: List[str]


def et_cortex_m_program(
    model: torch.nn.Module, example: tuple, calibration: Iterable[tuple], cpu: str = "M55"
) -> EtCortexMProgram:
    """ExecuTorch's Cortex-M program for `model` (channels-last) on `cpu` (a CortexM member name)."""
    from executorch.backends.cortex_m.edge_compile_config import cortex_m_edge_compile_config
    from executorch.backends.cortex_m.passes.cortex_m_pass_manager import CortexMPassManager
    from executorch.backends.cortex_m.quantizer.quantizer import CortexMQuantizer
    from executorch.backends.cortex_m.target_config import CortexM, CortexMTargetConfig
    from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    model = model.eval().to(memory_format=torch.channels_last)
    example = tuple(channels_last(x) for x in example)
    graph = torch.export.export(model, example, strict=False).module(check_guards=False)
    prepared = prepare_pt2e(graph, CortexMQuantizer())
    for batch in calibration:
        prepared(*(channels_last(x) for x in batch))
    converted = convert_pt2e(prepared)
    edge = to_edge_transform_and_lower(
        torch.export.export(converted, example, strict=False), compile_config=cortex_m_edge_compile_config()
    )
    passes = CortexMPassManager(edge.exported_program(), target_config=CortexMTargetConfig(cpu=CortexM[cpu]))
    edge._edge_programs["forward"] = passes.transform()
    graph = edge.exported_program().graph
    ops = sorted({getattr(n.target, "__name__", str(n.target)) for n in graph.nodes if n.op == "call_function"})
    pte = edge.to_executorch(config=ExecutorchBackendConfig(extract_delegate_segments=False)).buffer
    return EtCortexMProgram(pte, converted, ops)


def et_int8_planned_bytes(
    model: torch.nn.Module, inputs: tuple, make_batch: Optional[Callable] = None
) -> Optional[int]:
    """ExecuTorch's planned bytes for the int8 program of its Cortex-M flow (calibrated on the inputs); None without
    ExecuTorch."""
    try:
        import executorch.backends.cortex_m  # noqa: F401
    except ImportError:
        return None
    from mcu_export.pte.reader import read_program

    program = read_program(et_cortex_m_program(model, inputs, [inputs]).pte)
    return int(sum(program.method("forward").non_const_buffer_sizes))
