"""What a run shows and keeps, the same for every target: output lines, the per-op table, the
outputs as .npz and the measurements as run.json."""

from __future__ import annotations

import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Dict, List, Optional, Union

import numpy as np

from mcu_export import atomic
from mcu_export.runners.base import ModelRun


def _range(o: np.ndarray) -> str:
    return f"{o.dtype.name}{list(o.shape)}" + (f"  min {o.min():.6g}  max {o.max():.6g}" if o.size else "")


def output_lines(run: ModelRun) -> List[str]:
    """One line per output; an int8 output of an io="int8" export gets a second, its dequantized value."""
    lines = []
    for i, o in enumerate(run.outputs):
        lines.append(f"output_{i}: {_range(o)}")
        f = run.dequantized[i] if i < len(run.dequantized) else None
        if f is not None:
            q = run.output_quantization[i] or {}
            lines.append(
                f"output_{i} dequantized, (q - zero_point) * scale with zero_point {q['zero_point']}, "
                f"scale {q['scale']:.9g}: {_range(f)}"
            )
    return lines


def input_lines(arrays, runner) -> List[str]:
    """A line per float32 input the runner quantizes for an int8 input (io="int8" exports)."""
    lines = []
    for i, (a, spec) in enumerate(zip(arrays, runner.inputs)):
        q = runner.input_quantization[i] if i < len(runner.input_quantization) else None
        if q is not None and a.dtype == np.float32 and spec.numpy_dtype == np.int8:
            lines.append(
                f"input_{i}: float32 quantized to int8 here, clamp(round_half_even(x * float32(1 / scale)) + "
                f"zero_point) with scale {q['scale']:.9g}, zero_point {q['zero_point']}"
            )
    return lines


def summary_line(run: ModelRun) -> str:
    measured = [
        f"{run.ticks} ticks" if run.ticks is not None else "",
        f"stack {run.stack_used} bytes" if run.stack_used is not None else "",
        f"{run.seconds:.2f} s",
    ]
    return f"{run.board} ({run.target}): {', '.join(m for m in measured if m)}"


def format_per_op_table(run: ModelRun) -> str:
    """One row per kernel call: index, op, the model's source line (when known), instructions, share."""
    total = run.instructions_per_inference
    located = any(o.source for o in run.per_op)
    rows = [("#", "op", "source" if located else "", "instructions", "share")]
    for o in run.per_op:
        # No count while the inference has one: the loader fused this call into an earlier one.
        count = ("fused" if total else "-") if o.instructions is None else f"{o.instructions:,}"
        share = f"{100.0 * o.instructions / total:.1f}%" if o.instructions is not None and total else "-"
        rows.append((str(o.index), o.op, (o.source or "-") if located else "", count, share))
    rows.append(("", "total (inference)", "", "-" if total is None else f"{total:,}", "100.0%" if total else "-"))
    widths = [max(len(r[c]) for r in rows) for c in range(5)]
    lines = []
    for r in rows:
        source = f"  {r[2]:<{widths[2]}}" if located else ""
        lines.append(f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}{source}  {r[3]:>{widths[3]}}  {r[4]:>{widths[4]}}")
    return "\n".join(lines)


def npu_estimate(program: Union[str, Path]) -> Optional[Dict]:
    """The NPU part of a run, as far as it is known without an NPU to measure: Vela's estimate per subgraph
    and per layer, from the export's report.json (None for a program without Ethos-U delegates)."""
    report = Path(program) / "report.json" if Path(program).is_dir() else Path(program).with_name("report.json")
    try:
        npu = json.loads(report.read_text()).get("npu")
    except (OSError, ValueError):
        return None
    if not npu:
        return None
    return {
        "source": "vela estimate",  # the subgraphs' cycles; what a PMU counted is in "measured" (npu_report)
        "accelerator": npu.get("accelerator"),
        "subgraphs": [
            {
                "delegate": s["index"],
                "cycles_npu": s["cycles_npu"],
                "layers": [
                    {"operator": la["operator"], "cycles": la["cycles"], "macs": la["macs"]}
                    for la in s.get("layers", [])
                    if la.get("cycles")
                ],
            }
            for s in npu.get("subgraphs", [])
        ],
    }


def npu_report(program: Union[str, Path], run: ModelRun) -> Optional[Dict]:
    """run.json's "npu": Vela's estimate (npu_estimate) and, where the NPU's PMU counted the jobs (an FVP,
    silicon), "measured": each delegate call's cycles, source "PMU". None when there is neither."""
    npu = npu_estimate(program) or {}
    if run.npu_measured:
        npu["measured"] = [asdict(m) for m in run.npu_measured]
    return npu or None


def npu_lines(npu: Dict) -> List[str]:
    """The NPU's share of a run, next to the CPU's per-op table: each delegate's estimated cycles and its layers,
    then what the PMU counted for its calls."""
    lines = []
    measured = npu.get("measured", [])
    for s in npu.get("subgraphs", []):
        layers = ", ".join(f"{la['operator']} {la['cycles']:,}" for la in s["layers"][:8])
        more = f", ... ({len(s['layers'])} layers)" if len(s["layers"]) > 8 else ""
        lines.append(
            f"delegate {s['delegate']} on {npu['accelerator']}: {s['cycles_npu']:,} NPU cycles "
            f"({npu['source']}): {layers}{more}"
        )
        lines += [_measured_line(m) for m in measured if m["delegate"] == s["delegate"]]
    known = {s["delegate"] for s in npu.get("subgraphs", [])}
    lines += [_measured_line(m) for m in measured if m["delegate"] not in known]
    return lines


def _measured_line(m: Dict) -> str:
    return f"delegate {m['delegate']} (instruction {m['instruction']}): {m['cycles']:,} NPU cycles ({m['source']})"


def run_json(run: ModelRun, npu: Optional[Dict] = None) -> Dict:
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
        "outputs": [_output_entry(run, i) for i in range(len(run.outputs))],
        **({"npu": npu} if npu else {}),
    }


def _output_entry(run: ModelRun, i: int) -> Dict:
    o = run.outputs[i]
    entry: Dict = {"shape": list(o.shape), "dtype": o.dtype.name}
    if i < len(run.output_quantization) and run.output_quantization[i] is not None:
        entry["quantization"] = run.output_quantization[i]
    return entry


def write_run_json(path: Union[str, Path], run: ModelRun, npu: Optional[Dict] = None) -> Path:
    atomic.write_bytes(path, (json.dumps(run_json(run, npu), indent=2) + "\n").encode())
    return Path(path)


def write_outputs(path: Union[str, Path], run: ModelRun) -> Path:
    """The outputs as an .npz with keys output_0, output_1, ... as the program returns them; an int8 output of
    an io="int8" export also as output_<i>_dequantized (float32, (q - zero_point) * scale)."""
    arrays = {f"output_{i}": o for i, o in enumerate(run.outputs)}
    arrays.update({f"output_{i}_dequantized": f for i, f in enumerate(run.dequantized) if f is not None})
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    atomic.write_bytes(path, buf.getvalue())
    return Path(path)
