"""`make demo`: the keyword-spotting example as firmware for Corstone-300 (Cortex-M55), run under QEMU.

Exports the model, builds the firmware, runs it on the simulated board and prints its outputs next to
torch's, the firmware's flash and RAM, and the instructions per inference with the costliest ops."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch

from mcu_export.api import export
from mcu_export.errors import McuExportError
from mcu_export.examples import spec
from mcu_export.firmware.flow import build_for_board, record_run
from mcu_export.firmware.model_run import run_model_firmware
from mcu_export.model_spec import load_model

BOARD = "corstone-300"
OUT = Path("out/kws_dscnn")


def _say(message: str) -> None:
    print(f"demo: {message}", flush=True)


def _fmt(values: np.ndarray) -> str:
    return np.array2string(values.ravel(), precision=4, max_line_width=120)


def main() -> int:
    model, inputs = load_model(spec("kws_dscnn"))
    artifact = export(model, inputs, progress=_say)
    artifact.save(OUT)
    _say(f"wrote {OUT}/model.pte ({len(artifact.pte)} bytes); building firmware for {BOARD}")
    build = build_for_board(OUT, BOARD)
    _say(f"running {build.elf} on QEMU (mps3-an547, Cortex-M55)")
    run = run_model_firmware(build, BOARD, [x.numpy() for x in inputs])
    record_run(OUT, BOARD, run)

    with torch.no_grad():
        want = model(*inputs).numpy()
    got = run.outputs[0]
    err = float(np.max(np.abs(got - want)))
    host = artifact.run(*inputs)[0]
    sizes = json.loads((OUT / "report.json").read_text())["firmware"][BOARD]
    flash, ram = sizes["flash"], sizes["ram"]
    mem = artifact.report["memory"]
    top = sorted(run.per_op, key=lambda op: op.instructions, reverse=True)[:3]

    print()
    print(f"keyword spotting DS-CNN, fp32, firmware on {BOARD} under QEMU")
    print(f"  device output   {_fmt(got)}")
    print(f"  torch           {_fmt(want)}")
    print(f"  max |error|     {err:.3g} vs torch, {float(np.max(np.abs(got - host))):.3g} vs the host C runtime; "
          f"top-1 {int(got.argmax())} (torch {int(want.argmax())})")
    print(f"  flash           {flash['total']} bytes: model {flash['categories']['model_data']}, "
          f"runtime {flash['categories']['runtime']}, kernels {flash['categories']['kernels']}, "
          f"startup+libc {flash['categories']['startup_libc']}")
    print(f"  RAM             {ram['total']} bytes: arena {mem['arena_bytes']} (lower bound "
          f"{mem['lower_bound_bytes']}), stack used {run.stack_used} of {sizes['stack_size']}")
    print(f"  instructions    {run.instructions_per_inference:,} per inference; costliest ops: "
          + ", ".join(f"#{op.index} {op.op} {op.instructions:,}" for op in top))
    ok = err <= 1e-4
    print("demo: OK" if ok else "demo: FAILED (error above 1e-4)")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except McuExportError as exc:
        print(f"demo: error: {exc.message}", file=sys.stderr)
        sys.exit(exc.exit_code)
