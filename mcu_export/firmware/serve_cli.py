"""What `mcu-export build OUT --board B --serve [--ops OPS]` and `mcu-export sim OUT --board B --serial ENDPOINT`
do (the CLI parses arguments and calls these)."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Optional

from mcu_export.boards import load_firmware_board
from mcu_export.firmware.build import BuildResult
from mcu_export.firmware.serve_project import (
    build_serve_firmware,
    resolve_ops,
    serve_backends,
    serve_layout,
    serve_project_dir,
)

RUN_DIR = "run"  # in the serving project: the simulator's working directory, holding slots.bin


def build_serve_command(out_dir: str, *, board: str, ops: Optional[str], cmsis_nn=None) -> int:
    b = load_firmware_board(board)
    linked = resolve_ops(ops, out_dir)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    result = build_serve_firmware(out_dir, b, linked, cmsis_nn=cmsis_nn)
    layout = serve_layout(b)
    for path in (result.elf, result.bin, result.uf2, result.map):
        if path is not None:
            print(f"wrote {path}")
    slots = (
        f"model slots in flash ({b.flash.slot_store})"
        if b.flash.slot_store
        else f"model slots 2 x {layout.slot_bytes:,} bytes in {layout.slot_region}"
    )
    npu = f", the EthosUBackend delegate ({b.npu})" if serve_backends(b) else ""
    print(
        f"serving firmware for {b.name}: {len(linked)} operators linked{npu}, work area {layout.work_bytes:,} bytes "
        f"in {layout.work_region}, {slots}"
    )
    return 0


def _firmware(out_dir: str, board) -> BuildResult:
    """What `build --serve` built for the board; built now (every kernel) when there is none."""
    art = serve_project_dir(out_dir, board) / "artifacts"
    if (art / "firmware.elf").is_file():
        return BuildResult(elf=art / "firmware.elf", map=art / "firmware.map")
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    return build_serve_firmware(out_dir, board)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def sim_command(out_dir: str, *, board: str, serial: str) -> int:
    """Serve the board's serving firmware under QEMU at `serial` until Ctrl-C: the endpoint goes alone on one
    line of stdout (for scripts), the rest to stderr."""
    from mcu_export.errors import UsageError
    from mcu_export.firmware.sim import SerialSim, serial_backend

    b = load_firmware_board(board)
    serial_backend(serial)  # a wrong endpoint or board fails before a build
    if b.qemu is None:
        raise UsageError(f"board '{b.name}' has no QEMU machine to simulate it")
    firmware = _firmware(out_dir, b)
    # `kill PID` stops it as Ctrl-C does: QEMU is ended with it, not left running without its parent
    signal.signal(signal.SIGTERM, _interrupt)
    run = serve_project_dir(out_dir, b) / RUN_DIR
    sim = SerialSim(b, firmware.elf, run, serial)
    try:
        port = sim.start()
        print(port, flush=True)
        print(
            f"mcu-export: sim: {b.name} (qemu {b.qemu.machine}) serving the serial protocol at {port}; "
            f"model slots in {run / 'slots.bin'}"
            + ("; NPU jobs run on the host's simulator (the NPU seam)" if sim.npu else "")
            + "; Ctrl-C stops",
            file=sys.stderr,
            flush=True,
        )
        assert sim.proc is not None  # started above
        code = sim.proc.wait()
        print(f"mcu-export: sim: QEMU ended (exit {code})", file=sys.stderr)
        return 0 if code == 0 else 2
    except KeyboardInterrupt:
        sim.stop()
        print("mcu-export: sim: stopped", file=sys.stderr)
        return 0
    finally:
        sim.stop()
        for error in sim.npu_errors:  # a job the simulator refused: the device answered 0x030A for it
            print(f"mcu-export: sim: {error}", file=sys.stderr)
