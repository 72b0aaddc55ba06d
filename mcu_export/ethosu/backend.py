"""The Ethos-U backend: runs of NPU-capable int8 kernel calls become one delegate call each.

It works on the lowered int8 program, after the cortex_m rules have chosen every layout and every
requantization (see mcu_export.ethosu.calls): each kernel call is described as an `NpuOp` and judged by the
capability checks of the chosen NPU generation (mcu_export.ethosu.constraints); the largest contiguous runs
of accepted calls form the NPU subgraphs. Each subgraph becomes a TOSA graph (to_tosa), is compiled by Vela,
and its kernel calls are replaced by one DelegateCall whose processed data is the blob in ExecuTorch's Arm
layout. Its arguments are the subgraph's inputs, its outputs (ExecuTorch's convention) and then the NPU
scratch, a planned uint8 tensor the memory planner places in the arena for that one call.

What stays on the CPU is listed with its reason in `info.partitions` (report.json → "partitions"); Vela's
estimates per subgraph go to `info.npu` (report.json → "npu").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from mcu_export.ethosu.blob import BACKEND_ID, pack
from mcu_export.ethosu.calls import Call, Values, read_calls
from mcu_export.ethosu.constraints import refusal
from mcu_export.ethosu.describe import describe
from mcu_export.ethosu.schedule import dependencies, grouped_order
from mcu_export.ethosu.to_tosa import TosaSubgraph, to_tosa
from mcu_export.ethosu.vela import VelaError, VelaResult, compile_tosa
from mcu_export.lower.backend import Backend
from mcu_export.lower.builder import ProgramBuilder
from mcu_export.planner.lifetimes import instruction_args, tensors_named
from mcu_export.progress import Step
from mcu_export.pte import program as pte

TOSA_SPEC = "TOSA-1.0+INT"
# Conversions at the model's float edges: not counted as operators when saying how much runs on the NPU.
_IO_CONVERSIONS = {"cortex_m::quantize_per_tensor.out", "cortex_m::dequantize_per_tensor.out"}
# Calls that move or reshape bytes only: a subgraph of nothing else is cheaper left on the CPU.
_MOVES_ONLY = {"reshape", "transpose", "concat", "pad"}


@dataclass
class Subgraph:
    """One NPU subgraph as lowered: its calls, its TOSA graph, Vela's result."""

    first: int
    last: int
    calls: List[Call]
    tosa: TosaSubgraph
    vela: VelaResult
    nodes: List[str] = field(default_factory=list)


class EthosUBackend(Backend):
    name = "ethos-u"

    def __init__(
        self,
        accelerator: str,
        system_config: Optional[str] = None,
        memory_mode: Optional[str] = None,
        progress: Optional[Callable[[str], None]] = None,
    ):
        self.accelerator = accelerator
        self.system_config = system_config
        self.memory_mode = memory_mode
        self.say = progress or (lambda _m: None)
        self.subgraphs: List[Subgraph] = []

    # ---- decisions ------------------------------------------------------------------------------
    def decide(self, builder: ProgramBuilder) -> Tuple[List[Optional[Call]], List[Optional[str]], List[str]]:
        """Per instruction: its call; None when the NPU takes it, else the reason; the NpuOp kind ("" if none)."""
        values = Values(builder.table.values, builder.program.constant_buffer)
        calls = read_calls(builder.instructions, builder.operators)
        reasons: List[Optional[str]] = []
        kinds: List[str] = []
        for call in calls:
            described = describe(call, values)
            if isinstance(described, str):
                reasons.append(described)
                kinds.append("")
            else:
                reasons.append(refusal(described, self.accelerator))
                kinds.append(described.kind)
        return calls, reasons, kinds

    @staticmethod
    def runs(reasons: Sequence[Optional[str]], kinds: Sequence[str]) -> List[Tuple[int, int]]:
        """Maximal runs of accepted instructions that compute something (first, last), in program order."""
        runs: List[Tuple[int, int]] = []
        start = None
        for i, reason in enumerate([*reasons, "end"]):
            if reason is None and start is None:
                start = i
            elif reason is not None and start is not None:
                runs.append((start, i - 1))
                start = None
        return [(a, b) for a, b in runs if any(kinds[i] not in _MOVES_ONLY for i in range(a, b + 1))]

    # ---- the backend interface ------------------------------------------------------------------
    def finish(self, builder: ProgramBuilder, outputs: List[int]) -> None:
        calls, reasons, kinds = self.decide(builder)
        order = grouped_order(
            dependencies(builder.instructions, calls, builder.table.values), [r is None for r in reasons]
        )
        if order != sorted(order):
            builder.reorder_instructions(order)
            calls, reasons, kinds = self.decide(builder)
        values = Values(builder.table.values, builder.program.constant_buffer)
        infos = list(builder.info.instructions)  # as the CPU program has them, before splicing
        runs = self.runs(reasons, kinds)
        reads_from: Dict[int, int] = {}  # tensor -> last instruction reading it
        for step, instr in enumerate(builder.instructions):
            for arg in instruction_args(instr):
                for t in tensors_named(builder.table.values, arg):
                    reads_from[t] = step
        end = len(builder.instructions)
        for t in outputs:
            reads_from[t] = end
        self.subgraphs = []
        for k, (first, last) in enumerate(runs):
            run = [c for c in calls[first : last + 1] if c is not None]
            tosa = to_tosa(run, values, _read_after(reads_from, last))
            names = [builder.info.instructions[i].node for i in range(first, last + 1)]
            label = f"NPU subgraph {k} (nodes {names[0]}..{names[-1]})"
            self.say(Step(f"compiling with Vela for {self.accelerator}: subgraph", k + 1, len(runs), note=label))
            try:
                vela = compile_tosa(tosa.graph, self.accelerator, name=label, system_config=self.system_config,
                                    memory_mode=self.memory_mode)  # fmt: skip
            except VelaError as exc:
                ops = ", ".join(sorted({c.name for c in run}))
                raise VelaError(f"{exc} (its operators: {ops})") from None
            self.subgraphs.append(Subgraph(first, last, run, tosa, vela, names))
        self._splice(builder)
        builder.info.partitions = self._partitions(infos, reasons, runs)
        builder.info.npu = self._estimates()
        builder.info.npu_graphs = [s.tosa.graph for s in self.subgraphs]

    def _splice(self, builder: ProgramBuilder) -> None:
        delegates = [builder.add_delegate(BACKEND_ID, pack(s.vela.blob), self.compile_specs(s.vela.flags))
                     for s in self.subgraphs]  # fmt: skip
        for s, delegate in reversed(list(zip(self.subgraphs, delegates))):
            scratch = builder.table.planned_tensor(torch.uint8, [max(s.vela.blob.scratch_size, 1)], "NPU scratch")
            args = [*s.tosa.inputs, *s.tosa.outputs, scratch]
            builder.splice_delegate(s.first, s.last, delegate, args, f"ethos_u_subgraph_{delegates.index(delegate)}")

    def compile_specs(self, flags: Sequence[str]) -> List[pte.CompileSpec]:
        """The keys ExecuTorch's Arm backend writes, so that a reader of either file finds them; the flags
        are Vela's options as this subgraph was compiled with."""
        pairs = [("tosa_spec", TOSA_SPEC), ("compile_flags", " ".join(flags)), ("output_format", "vela"),
                 ("target", self.accelerator)]  # fmt: skip
        return [pte.CompileSpec(key, value.encode()) for key, value in pairs]

    # ---- the report -----------------------------------------------------------------------------
    def _partitions(self, infos, reasons, runs) -> Dict:
        inside = {i for first, last in runs for i in range(first, last + 1)}
        cpu = []
        for i, reason in enumerate(reasons):
            if i in inside:
                continue
            info = infos[i]
            why = reason if reason is not None else "an NPU subgraph of data movement only runs on the CPU"
            cpu.append({"op": info.op, "node": info.node, "location": info.location, "reason": why})
        subgraphs = [
            {
                "index": k,
                "operators": [c.op for c in s.calls],
                "nodes": s.nodes,
                "inputs": len(s.tosa.inputs),
                "outputs": len(s.tosa.outputs),
            }
            for k, s in enumerate(self.subgraphs)
        ]
        computing = [i for i in infos if i.op not in _IO_CONVERSIONS]
        on_npu = sum(len(s.calls) for s in self.subgraphs)
        return {
            "backend": self.accelerator,
            "subgraphs": subgraphs,
            "cpu": cpu,
            "operators": len(computing),
            "operators_on_npu": on_npu,
        }

    def _estimates(self) -> Dict:
        per: List[Dict[str, Any]] = []
        for k, s in enumerate(self.subgraphs):
            e = s.vela.estimates
            blob = s.vela.blob
            per.append(
                {
                    "index": k,
                    "cycles_npu": int(e.get("cycles_npu", 0)),
                    "cycles_total": int(e.get("cycles_total", 0)),
                    "sram_bytes": int(round(e.get("sram_memory_used", 0.0) * 1024)),
                    "flash_bytes": int(
                        round(
                            (e.get("off_chip_flash_memory_used", 0.0) + e.get("on_chip_flash_memory_used", 0.0)) * 1024
                        )
                    ),
                    "passes": int(e.get("passes_after_fusing", 0)),
                    "command_stream_bytes": len(blob.cmd_data),
                    "weight_bytes": len(blob.weight_data),
                    "scratch_bytes": blob.scratch_size,
                    "fast_scratch_bytes": s.vela.fast_scratch_size,
                    "layers": s.vela.layers,
                }
            )
        keys = ("cycles_npu", "cycles_total", "weight_bytes", "scratch_bytes")
        total = {key: sum(p[key] for p in per) for key in keys}
        first = self.subgraphs[0].vela if self.subgraphs else None
        return {
            "accelerator": self.accelerator,
            "system_config": first.system_config if first else self.system_config,
            "memory_mode": first.memory_mode if first else self.memory_mode,
            "subgraphs": per,
            "total": total,
        }


def _read_after(reads_from: Dict[int, int], last: int) -> Callable[[int], bool]:
    return lambda t: reads_from.get(t, -1) > last
