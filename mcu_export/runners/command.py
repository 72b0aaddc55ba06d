"""`mcu-export run OUT --board B [--sim TARGET]`: the same steps for every board and target."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import numpy as np

from mcu_export.errors import UsageError
from mcu_export.runners import runner_for
from mcu_export.runners.report import (
    format_per_op_table,
    input_lines,
    npu_lines,
    npu_report,
    output_lines,
    summary_line,
    write_outputs,
    write_run_json,
)


def load_input(path: str, index: int) -> np.ndarray:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"input {index}: file not found: {p}")
    try:
        array = np.load(p, allow_pickle=False)
    except Exception as exc:
        raise UsageError(f"input {index}: {p} is not a readable .npy file ({type(exc).__name__})") from exc
    if not isinstance(array, np.ndarray):  # an .npz given where one array was expected
        raise UsageError(f"input {index}: {p} holds several arrays (an .npz): give it as the only --input")
    return array


_NUMBERED = re.compile(r"^(?:input|arr)_(\d+)$")


def load_npz(path: Path) -> Tuple[List[np.ndarray], List[str]]:
    """The arrays of one .npz, one per model input: keys input_0, input_1, ... (or numpy's arr_0, ... from
    np.savez(a, b)) in their number's order, any other names in the order they were saved."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            keys = list(npz.files)
            numbered = [_NUMBERED.match(k) for k in keys]
            if keys and all(numbered):
                keys.sort(key=lambda k: int(_NUMBERED.match(k).group(1)))  # type: ignore[union-attr]
            arrays = [npz[k] for k in keys]
    except Exception as exc:
        raise UsageError(f"{path} is not a readable .npz file ({type(exc).__name__}: {exc})") from exc
    if not arrays:
        raise UsageError(f"{path} holds no arrays")
    return arrays, [f"{path.name}:{k}" for k in keys]


def load_inputs(paths: Sequence[str]) -> Tuple[List[np.ndarray], List[str]]:
    """The model inputs from the --input files: one .npy per input, or a single .npz holding them all."""
    if len(paths) == 1 and str(paths[0]).endswith(".npz"):
        p = Path(paths[0])
        if not p.is_file():
            raise UsageError(f"input file not found: {p}")
        return load_npz(p)
    return [load_input(p, i) for i, p in enumerate(paths)], [str(p) for p in paths]


def run_command(
    program: str,
    *,
    board: str,
    input_paths: Sequence[str],
    target: Optional[str] = None,
    output_path: Optional[str] = None,
    json_path: Optional[str] = None,
    timeout: float = 60.0,
    port: Optional[str] = None,
    baud: int = 115200,
    chart_path: Optional[str] = None,
) -> int:
    """Run once with the .npy inputs (building first when the target needs it and the build is stale),
    print the outputs and what the target measured; save outputs (.npz) and RUN.json when asked.
    port, baud: the link of target `serial`. chart_path: per-op time and the arena timeline as an HTML page
    and a PNG next to it (mcu_export.charts, drawn by the report's figures)."""
    if port and target != "serial":
        raise UsageError("--port goes with --sim serial (a board on a serial link)")
    options = dict(port=port, baud=baud) if target == "serial" else {}
    if chart_path:
        from mcu_export.charts import require_matplotlib

        require_matplotlib()  # before a run that may take minutes
    runner = runner_for(board, target, timeout=timeout, **options)
    runner.open(Path(program))
    runner.use_quantization(Path(program))  # io="int8" exports: float32 inputs quantized, outputs also dequantized
    arrays, names = load_inputs(input_paths)
    run = runner.run(arrays, names=names)
    runner.record(run)
    print("\n".join([*input_lines(arrays, runner), *output_lines(run)]))
    if run.instructions_per_inference is not None:
        print(format_per_op_table(run))
    npu = npu_report(program, run)
    if npu:
        print("\n".join(npu_lines(npu)))
    print(summary_line(run))
    if Path(program).is_dir():  # the export folder keeps its last run: the profile of `mcu-export report`
        write_run_json(Path(program) / "last_run.json", run, npu)
    if output_path:
        also = (
            " (output_<i>: as the program returns it; output_<i>_dequantized: float32)"
            if any(f is not None for f in run.dequantized)
            else ""
        )
        print(f"wrote {write_outputs(output_path, run)}{also}")
    if json_path:
        print(f"wrote {write_run_json(json_path, run, npu)}")
    if chart_path:
        from mcu_export.charts import run_chart

        print("wrote {} and {}".format(*run_chart(chart_path, run, program, npu)))
    return 0
