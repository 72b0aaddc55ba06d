"""What a run shows and keeps, the same for every target: output lines, the per-op table, the
outputs as .npz and the measurements as run.json."""

from __future__ import annotations

import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Dict, List, Union

import numpy as np

from mcu_export import atomic
from mcu_export.runners.base import ModelRun


def output_lines(run: ModelRun) -> List[str]:
    return [
        f"output_{i}: {o.dtype.name}{list(o.shape)}  min {o.min():.6g}  max {o.max():.6g}"
        if o.size
        else f"output_{i}: {o.dtype.name}{list(o.shape)}"
        for i, o in enumerate(run.outputs)
    ]


def summary_line(run: ModelRun) -> str:
    measured = [
        f"{run.ticks} ticks" if run.ticks is not None else "",
        f"stack {run.stack_used} bytes" if run.stack_used is not None else "",
        f"{run.seconds:.2f} s",
    ]
    return f"{run.board} ({run.target}): {', '.join(m for m in measured if m)}"


def format_per_op_table(run: ModelRun) -> str:
    """One row per kernel call: index, op, instructions, share of the inference."""
    total = run.instructions_per_inference
    rows = [("#", "op", "instructions", "share")]
    for o in run.per_op:
        # No count while the inference has one: the loader fused this call into an earlier one.
        count = ("fused" if total else "-") if o.instructions is None else f"{o.instructions:,}"
        share = f"{100.0 * o.instructions / total:.1f}%" if o.instructions is not None and total else "-"
        rows.append((str(o.index), o.op, count, share))
    rows.append(("", "total (inference)", "-" if total is None else f"{total:,}", "100.0%" if total else "-"))
    widths = [max(len(r[c]) for r in rows) for c in range(4)]
    lines = []
    for r in rows:
        lines.append(f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:>{widths[3]}}")
    return "\n".join(lines)


def run_json(run: ModelRun) -> Dict:
    return {
        "board": run.board,
        "target": run.target,
        "instructions_per_inference": run.instructions_per_inference,
        "total_instructions": run.total_instructions,
        "per_op": [asdict(o) for o in run.per_op],
        "ticks": run.ticks,
        "stack_used_bytes": run.stack_used,
        "meta_pool_bytes": run.meta_pool_bytes,
        "seconds": round(run.seconds, 3),
        "outputs": [{"shape": list(o.shape), "dtype": o.dtype.name} for o in run.outputs],
    }


def write_run_json(path: Union[str, Path], run: ModelRun) -> Path:
    atomic.write_bytes(path, (json.dumps(run_json(run), indent=2) + "\n").encode())
    return Path(path)


def write_outputs(path: Union[str, Path], run: ModelRun) -> Path:
    """The outputs as an .npz with keys output_0, output_1, ..."""
    buf = io.BytesIO()
    np.savez(buf, **{f"output_{i}": o for i, o in enumerate(run.outputs)})
    atomic.write_bytes(path, buf.getvalue())
    return Path(path)
