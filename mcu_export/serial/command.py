"""`mcu-export serial info|load|invoke|profile --port PORT [--baud N]`: the serial link's commands, each
printing what it did in a few lines; every failure is one McuExportError line (the CLI prints it)."""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from mcu_export import atomic
from mcu_export.errors import UsageError
from mcu_export.serial.client import Profile, SerialClient


def _image(program: str) -> bytes:
    path = Path(program)
    if path.is_dir():
        path = path / "model.pte"
    if not path.is_file():
        raise UsageError(f"no program at {program} (give an export folder or a .pte file)")
    return path.read_bytes()


def info_command(port: str, baud: int, timeout: float) -> int:
    with SerialClient(port, baud, timeout=timeout) as c:
        i = c.info()
    active = "none" if i.active_slot is None else f"slot {i.active_slot} (generation {i.generation})"
    print(f"board {i.board}, firmware {i.firmware}, protocol {i.protocol}, max frame {i.max_frame} bytes")
    print(f"work area {i.work_bytes} bytes, model slots 2 x {i.slot_bytes} bytes")
    print(
        f"active model: {active}"
        + (f", {i.image_bytes} bytes, CRC-32 {i.image_crc:08x}" if i.active_slot is not None else "")
    )
    print(f"{len(i.operators)} operators linked: {', '.join(i.operators)}")
    return 0


def load_command(port: str, baud: int, timeout: float, program: str) -> int:
    image = _image(program)

    def progress(done: int, total: int) -> None:
        print(f"\rmcu-export: loading {done}/{total} bytes", end="", file=sys.stderr, flush=True)

    with SerialClient(port, baud, timeout=timeout) as c:
        start = time.monotonic()
        generation = c.load(image, progress=progress if sys.stderr.isatty() else None)
        seconds = time.monotonic() - start
        slot = c.info().active_slot
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(
        f"loaded {len(image)} bytes into slot {slot} (generation {generation}) in {seconds:.2f} s "
        f"({len(image) / max(seconds, 1e-9):,.0f} bytes/s, {c.resends} resends)"
    )
    return 0


def invoke_command(port: str, baud: int, timeout: float, input_paths: Sequence[str], output_path: Optional[str]) -> int:
    from mcu_export.runners.command import load_inputs

    arrays, _names = load_inputs(input_paths)
    with SerialClient(port, baud, timeout=timeout) as c:
        start = time.monotonic()
        outputs, ticks = c.run(arrays)
        seconds = time.monotonic() - start
    for i, o in enumerate(outputs):
        stats = f"  min {o.min():.6g}  max {o.max():.6g}" if o.size else ""
        print(f"output_{i}: {o.dtype.name}{list(o.shape)}{stats}")
    print(f"{port}: {ticks} ticks, {seconds:.2f} s over the link")
    if output_path:
        buf = io.BytesIO()
        np.savez(buf, **{f"output_{i}": o for i, o in enumerate(outputs)})
        atomic.write_bytes(output_path, buf.getvalue())
        print(f"wrote {output_path}")
    return 0


def format_profile(profile: Profile) -> str:
    """One row per instruction: index, what ran, ticks, share of the invoke; then the total."""
    total = profile.total_ticks
    rows = [("#", "op", "ticks", "share")]
    for o in profile.ops:
        name = o.name if o.kind in ("kernel", "fused") else f"({o.kind}) {o.name}".rstrip()
        rows.append((str(o.index), name, f"{o.ticks:,}", f"{100.0 * o.ticks / total:.1f}%" if total else "-"))
    per_op = sum(o.ticks for o in profile.ops)
    rows.append(("", "sum of ops", f"{per_op:,}", f"{100.0 * per_op / total:.1f}%" if total else "-"))
    rows.append(("", "total (invoke)", f"{total:,}", "100.0%"))
    widths = [max(len(r[c]) for r in rows) for c in range(4)]
    return "\n".join(
        f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:>{widths[3]}}" for r in rows
    )


def profile_command(
    port: str,
    baud: int,
    timeout: float,
    input_paths: Sequence[str],
    chart_path: Optional[str] = None,
    program: Optional[str] = None,
) -> int:
    """The per-op profile of the last invoke; with inputs, invokes on them first. chart_path: also write it
    as an HTML page and a PNG (mcu_export.charts), with the arena timeline of `program` when given."""
    from mcu_export.runners.command import load_inputs

    if program and not chart_path:
        raise UsageError("--program goes with --chart (it gives the chart its arena timeline)")
    if chart_path:
        from mcu_export.charts import require_matplotlib

        require_matplotlib()  # before the port is opened
    with SerialClient(port, baud, timeout=timeout) as c:
        if input_paths:
            c.run(load_inputs(input_paths)[0])
        profile = c.profile()
    print(format_profile(profile))
    if chart_path:
        from mcu_export.charts import profile_chart

        print("wrote {} and {}".format(*profile_chart(chart_path, profile, program)))
    return 0
