"""What `mcu-export build OUT --board B` and `mcu-export run OUT --board B [--sim qemu|fvp]` do for a
firmware board (the CLI parses arguments and calls these; the host board keeps mcu_export.run)."""
from __future__ import annotations

import io
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np

from mcu_export import atomic
from mcu_export.boards import Board, load_board
from mcu_export.errors import UsageError
from mcu_export.firmware.build import BuildResult
from mcu_export.firmware.model_project import MODEL_DIR, project_dir
from mcu_export.firmware.model_run import format_per_op_table, run_model_firmware, write_run_json


def _export_dir(out_dir: Union[str, Path]) -> Path:
    out = Path(out_dir)
    if not (out / "model.pte").is_file():
        raise UsageError(f"{out} holds no model.pte (run `mcu-export export` first)")
    return out


def current_build(out_dir: Union[str, Path], board: Union[Board, str]) -> Optional[BuildResult]:
    """The firmware already built for OUT's model.pte on `board`, or None when absent or stale."""
    board = load_board(board) if isinstance(board, str) else board
    project = project_dir(out_dir, board)
    art = project / "artifacts"
    embedded = project / MODEL_DIR / "model.pte"
    if not (art / "firmware.elf").is_file() or not embedded.is_file():
        return None
    if embedded.read_bytes() != (Path(out_dir) / "model.pte").read_bytes():
        return None
    optional = {name: art / f"firmware.{name}" for name in ("bin", "uf2")}
    return BuildResult(elf=art / "firmware.elf", map=art / "firmware.map",
                       **{k: p if p.is_file() else None for k, p in optional.items()})


def build_command(out_dir: Union[str, Path], *, board: str, cmsis_nn=None) -> int:
    from mcu_export.firmware.flow import build_for_board

    out = _export_dir(out_dir)
    result = build_for_board(out, board, cmsis_nn=cmsis_nn)
    for path in (result.elf, result.bin, result.uf2, result.map):
        if path is not None:
            print(f"wrote {path}")
    return 0


def run_command(out_dir: Union[str, Path], *, board: str, input_paths: Sequence[str], sim: str = "qemu",
                output_path: Optional[str] = None, json_path: Optional[str] = None,
                timeout: float = 60.0) -> int:
    """Build if needed (once per model and board), run once with the .npy inputs, print outputs and the
    per-op table; save outputs (.npz) and RUN.json when asked."""
    from mcu_export.firmware.flow import build_for_board
    from mcu_export.pte.reader import read_program_file
    from mcu_export.run import check_inputs, load_input

    out = _export_dir(out_dir)
    board_def = load_board(board)
    if sim not in ("qemu", "fvp"):
        raise UsageError(f"unknown simulator '{sim}' (valid: qemu, fvp)")
    arrays = [load_input(p, i) for i, p in enumerate(input_paths)]
    check_inputs(read_program_file(out / "model.pte"), arrays, input_paths)
    build = current_build(out, board_def) or build_for_board(out, board_def)
    run = run_model_firmware(build, board_def, arrays, sim=sim, timeout=timeout, icount=(sim == "qemu"))
    from mcu_export.firmware.flow import record_run

    record_run(out, board_def, run)
    for i, o in enumerate(run.outputs):
        print(f"output_{i}: {o.dtype.name}{list(o.shape)}  min {o.min():.6g}  max {o.max():.6g}"
              if o.size else f"output_{i}: {o.dtype.name}{list(o.shape)}")
    if run.instructions_per_inference is not None:
        print(format_per_op_table(run))
    print(f"{board} ({sim}): {run.ticks} ticks, stack {run.stack_used} bytes, {run.seconds:.2f} s")
    if output_path:
        buf = io.BytesIO()
        np.savez(buf, **{f"output_{i}": o for i, o in enumerate(run.outputs)})
        atomic.write_bytes(output_path, buf.getvalue())
        print(f"wrote {output_path}")
    if json_path:
        print(f"wrote {write_run_json(json_path, run)}")
    return 0
