"""`make bench` table `loop`: the edit-run loop's phases, in seconds, for `mcu-export run MODEL_SPEC --board
corstone-300 [--quantize int8] --input x.npy` (issue 16), as a user runs it: one process, timed from outside.

Seven runs per model: `cold-cache` (a new folder and a cache without firmware builds: configure, compile the runtime,
the board's code and the model's kernels; the tools built once per install, the QEMU plugin and mx_run, are kept),
then into one folder: `cold` (a new folder, the cache warm: export, compile the
model's sources, link, run),
`edited` (the model's weights changed: a new export, ninja recompiles what changed, run), `unchanged` (the
same command again: the export and the firmware are reused), `rerun` (`mcu-export run OUT` on the export
folder: no torch, nothing to build, the report current), and `warm-edited` / `warm-unchanged`: the edited and
unchanged runs again through a warm server (mcu_export/server; the others run with MCU_EXPORT_SERVER=off). Python may write bytecode caches, as a user's does. Each phase runs from one progress line of the
CLI to the next (their text says which phase starts); `import` is the process start to the first line (Python,
torch, loading the model; for `unchanged` also its fingerprint), `link` is ninja's own record of linking
firmware.elf (taken out of `build`), `simulate` from the build's end (QEMU, inputs and outputs), `report` the
report.html written at the end.

    python -m mcu_export.bench_loop
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from mcu_export.bench_figures import Column, FigureStore
from mcu_export.examples import EXAMPLES_DIR

BOARD = "corstone-300"
# (scenario, the edit's weight scale; None: `run OUT`). warm-*: through a warm server (mcu_export/server) that
# `mcu-export server start` brought up before them, as after the first command of a session.
SCENARIOS = (
    ("cold-cache", 1.0),
    ("cold", 1.0),
    ("edited", 1.01),
    ("unchanged", 1.01),
    ("rerun", None),
    ("warm-edited", 1.02),
    ("warm-unchanged", 1.02),
)
PHASES = ("import", "capture", "quantize", "lower", "plan", "write", "build", "link", "simulate", "report")
# A progress line's text (after "mcu-export: ") -> the phase it starts.
_STARTS = (
    ("capturing with torch.export", "capture"),
    ("inserting observers", "quantize"),
    ("calibrat", "quantize"),
    ("converting to int8", "quantize"),
    ("running graph passes", "lower"),
    ("lowering to", "lower"),
    ("planning memory", "plan"),
    ("writing model.pte", "write"),
    ("build: ", "build"),
    ("writing report.html", "report"),
)
WRAPPER = """
import importlib.util
import sys

import torch

sys.path.insert(0, {folder!r})  # the example's siblings

_spec = importlib.util.spec_from_file_location("bench_loop_base", {base!r})
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)
SCALE = {scale!r}  # the "edit": the first weight scaled


def factory():
    model, inputs = _base.factory()
    with torch.no_grad():
        next(model.parameters()).mul_(SCALE)
    return model, inputs
"""


def phase_of(text: str) -> Optional[str]:
    if "unchanged since the export" in text:  # the export is reused: what follows is the run
        return "simulate"
    for prefix, phase in _STARTS:
        if text.startswith(prefix):
            return phase
    return None


def split_phases(started: float, lines: List[Tuple[float, str]], ended: float) -> Dict[str, float]:
    """Seconds per phase from the timestamped stderr lines of one run: a phase lasts from the line that starts
    it to the next line that starts another; after the build's last line, `simulate`."""
    spans: Dict[str, float] = dict.fromkeys(PHASES, 0.0)
    phase, since = "import", started
    marks = [(t, phase_of(text[len("mcu-export: ") :])) for t, text in lines if text.startswith("mcu-export: ")]
    last_build = max((t for t, p in marks if p == "build"), default=None)
    for t, p in marks:
        if p is not None and p != phase:
            spans[phase] += t - since
            phase, since = p, t
        if t == last_build:  # the build's "done" line: what follows is the run itself
            spans[phase] += t - since
            phase, since = "simulate", t
    spans[phase] += ended - since
    return spans


def _ninja_link_seconds(cache: Optional[Path]) -> float:
    """firmware.elf's last link time from the ninja log of the staging tree that built last (firmware/staging.py;
    the caller asks only after a run that built)."""
    from mcu_export.firmware.staging import root

    trees = (cache / "firmware-builds") if cache is not None else root()
    logs = sorted(trees.glob(f"{BOARD}-*/*/build/.ninja_log"), key=lambda p: p.stat().st_mtime)
    if not logs:
        return 0.0
    seconds = 0.0
    for line in logs[-1].read_text().splitlines()[1:]:
        fields = line.split("\t")
        if len(fields) >= 4 and fields[3] == "firmware.elf":
            seconds = (int(fields[1]) - int(fields[0])) / 1000.0
    return seconds


def _env(server: Optional[Path], cache: Optional[Path] = None) -> Dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent), PYTHONWARNINGS="ignore")
    if cache is not None:  # an empty cache: the runtime, the board's code and every kernel compile again
        env["MCU_EXPORT_CACHE"] = str(cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user's Python runs: modules compiled once, not every start
    env["MCU_EXPORT_SERVER"] = "on" if server else "off"
    if server:
        env["MCU_EXPORT_SERVER_DIR"] = str(server)
    return env


def cold_build_cache(folder: Path) -> Path:
    """A cache holding every entry of the user's but the firmware builds (links to them): what a first build
    for a board, or after a source or compiler change, starts from."""
    from mcu_export.firmware import staging
    from mcu_export.host_runtime import cache_root

    folder.mkdir(parents=True, exist_ok=True)
    real = cache_root()
    if real.is_dir():
        for entry in real.iterdir():
            if entry.name != staging.root().name and not (folder / entry.name).exists():
                (folder / entry.name).symlink_to(entry)
    return folder


def timed_run(
    args: List[str], cwd: Path, server: Optional[Path] = None, cache: Optional[Path] = None
) -> Tuple[Dict[str, float], float]:
    env = _env(server, cache)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcu_export.cli", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    lines = [(time.perf_counter(), line.rstrip("\n")) for line in proc.stderr]
    code = proc.wait()
    ended = time.perf_counter()
    if code != 0:
        raise RuntimeError(f"bench-loop: `mcu-export {' '.join(args)}` failed: {lines[-1][1] if lines else code}")
    return split_phases(started, lines, ended), ended - started


def measure(example: str, quantize: bool, work: Path) -> Dict[str, Dict[str, float]]:
    import numpy as np

    from mcu_export.model_spec import load_model

    base = EXAMPLES_DIR / f"{example}.py"
    _, inputs = load_model(f"{base}:factory")
    np.save(work / "x.npy", inputs[0].numpy())
    spec, out = work / "model.py", work / "out"
    args = ["run", f"{spec}:factory", "--board", BOARD, "--input", "x.npy"]
    args += ["--quantize", "int8"] if quantize else []
    rows = {}
    server = work / "srv"
    for scenario, scale in SCENARIOS:
        warm = scenario.startswith("warm")
        cache = cold_build_cache(work / "cache") if scenario == "cold-cache" else None
        folder = work / "out-cold-cache" if cache else out
        if warm and not (server / "started").exists():  # the server warms up outside the timed runs
            subprocess.run([sys.executable, "-m", "mcu_export.cli", "server", "start"], env=_env(server), check=True)
            (server / "started").touch()
        if scale is not None:
            spec.write_text(WRAPPER.format(base=str(base), folder=str(base.parent), scale=scale))
        # rerun: the export folder itself (`run OUT`), as after an export: no torch, the firmware up to date
        rerun = ["run", str(out), "--board", BOARD, "--input", "x.npy"]
        command = args + ["--out", str(folder)] if scale is not None else rerun
        spans, total = timed_run(command, work, server if warm else None, cache)
        link = _ninja_link_seconds(cache) if spans["build"] else 0.0
        spans["build"], spans["link"] = max(spans["build"] - link, 0.0), link
        rows[scenario] = {**spans, "total": total}
    subprocess.run([sys.executable, "-m", "mcu_export.cli", "server", "stop"], env=_env(server), capture_output=True)
    return rows


def loop_table(store: FigureStore) -> None:
    table = store.table(
        "loop",
        [Column("model", width=10), Column("dtype", width=5), Column("run", width=14)],
        [Column(f"{p} s", fmt=".2f", compare=False, width=9) for p in (*PHASES, "total")],
    )
    for example in ("kws_dscnn",):
        for quantize in (False, True):
            # `server stop` (end of measure) returns after the last warm run's report.html, which the server writes
            # after the result, has landed: the folder is quiet when it goes.
            with tempfile.TemporaryDirectory(prefix="mcu-export-bench-loop-") as tmp:
                rows = measure(example, quantize, Path(tmp))
            for scenario, spans in rows.items():
                table.row(
                    (example, "int8" if quantize else "fp32", scenario),
                    {f"{p} s": round(v, 3) for p, v in spans.items()},
                )


def main(argv=None) -> int:
    store = FigureStore()
    loop_table(store)
    store.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
