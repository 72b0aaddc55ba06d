"""The Python API: `export(model, example_inputs)` returns an `Artifact` that can be saved or run."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Union

import numpy as np
import torch

from mcu_export import atomic, dtypes
from mcu_export.pte.program import Program, Tensor

Progress = Optional[Callable[[str], None]]


@dataclass
class Artifact:
    program: Program
    pte: bytes
    report: Dict
    memory_plan: object = field(default=None, repr=False)

    def save(self, out_dir: Union[str, Path]) -> Path:
        """Writes OUT/model.pte and OUT/report.json together (staged, then renamed: never half-written)."""
        report = json.dumps(self.report, indent=2, sort_keys=True).encode() + b"\n"
        return atomic.write_files(out_dir, {"model.pte": self.pte, "report.json": report})

    def run(self, *inputs, board: str = "host") -> List[np.ndarray]:
        """Runs the program on the C runtime (never on torch) and returns its outputs."""
        from mcu_export.run import run_program_bytes

        arrays = [x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x) for x in inputs]
        return run_program_bytes(self.pte, arrays, board=board)


def export(model: torch.nn.Module, example_inputs: tuple, *, progress: Progress = None) -> Artifact:
    from mcu_export.pipeline import to_program
    from mcu_export.pte.writer import write_program

    say = progress or (lambda _m: None)
    started = time.perf_counter()
    program, info, plan = to_program(model, tuple(example_inputs), progress=say)
    say("writing model.pte")
    pte = write_program(program)
    report = build_report(program, info, plan, pte, time.perf_counter() - started)
    return Artifact(program=program, pte=pte, report=report, memory_plan=plan)


def export_spec(spec: str, *, progress: Progress = None) -> Artifact:
    from mcu_export.model_spec import load_model

    model, inputs = load_model(spec)
    artifact = export(model, inputs, progress=progress)
    artifact.report["model"] = spec
    return artifact


def _io(plan_values, indices) -> List[Dict]:
    out = []
    for i in indices:
        t = plan_values[i]
        if isinstance(t, Tensor):
            out.append({"shape": list(t.sizes), "dtype": dtypes.name(t.scalar_type)})
        else:
            out.append({"kind": type(t).__name__})
    return out


def build_report(program: Program, info, plan, pte: bytes, seconds: float) -> Dict:
    method = program.method("forward")
    ops: Dict[str, int] = {}
    for instr in method.chains[0].instructions:
        op_index = getattr(instr, "op_index", None)
        if op_index is not None:
            name = method.operators[op_index].qualified
            ops[name] = ops.get(name, 0) + 1
    constant_bytes = sum(len(b) for b in program.constant_buffer)
    arena, bound = plan.arena_bytes, plan.lower_bound_bytes
    return {
        "ops": ops,
        "memory": {
            "arena_bytes": arena,
            "lower_bound_bytes": bound,
            "over_lower_bound_bytes": arena - bound,
            "arena_over_lower_bound": round(arena / bound, 4) if bound else 1.0,
            "planned_tensors": len(plan.tensors),
            "constant_bytes": constant_bytes,
        },
        "inputs": _io(method.values, method.inputs),
        "outputs": _io(method.values, method.outputs),
        "instructions": len(method.chains[0].instructions),
        "pte_bytes": len(pte),
        "export_seconds": round(seconds, 3),
    }
