"""From an export folder to built firmware for a board: fit check, build, size report into report.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional, Union

from mcu_export import atomic
from mcu_export.boards import Board, load_firmware_board
from mcu_export.errors import UsageError
from mcu_export.firmware import npu as npu_mod
from mcu_export.firmware.build import BuildResult
from mcu_export.firmware.mapfile import parse_map
from mcu_export.firmware.model_project import build_model_firmware, place_program
from mcu_export.firmware.sizes import check_fit, estimate_demands, size_report
from mcu_export.firmware.stack import load_report
from mcu_export.pte.reader import read_program

# The runtime core alone links to ~6.3 KiB on every Cortex-M board (mcu_export.bench_firmware); counting
# only that much code keeps the early check from ever refusing a model the linker would accept.
MIN_CODE_BYTES = 6 * 1024


def export_dir(out_dir: Union[str, Path]) -> Path:
    out = Path(out_dir)
    if not (out / "model.pte").is_file():
        raise UsageError(f"{out} holds no model.pte (run `mcu-export export` first)")
    return out


def check_scratch_target(out_dir: Path, board: Board) -> None:
    """An int8 export sizes its kernels' scratch buffers for one board's ISA (scalar, DSP or MVE), or for all
    when exported without a board; firmware for a board whose kernels need more would fail at run time."""
    path = out_dir / "report.json"
    report = json.loads(path.read_text()) if path.is_file() else {}
    int8 = report.get("int8")
    if not int8 or "scratch_sized_for" not in int8:
        return
    isa = board.cpu.isa
    if isa not in int8["scratch_sized_for"]:
        raise UsageError(
            f"{out_dir} was exported in int8 for board '{int8.get('board')}': its scratch was not "
            f"sized for the {isa} kernels of board '{board.name}' ({board.cpu.mcpu}), only for "
            f"{'/'.join(int8['scratch_sized_for'])}: re-export with --board {board.name}, or without "
            f"--board for every board"
        )


def check_model_fits(out_dir: Union[str, Path], board: Board) -> None:
    """Raises FirmwareTooLarge naming the region and the bytes over, before the compiler or linker runs."""
    pte = (export_dir(out_dir) / "model.pte").read_bytes()
    program = read_program(pte)
    plan = program.method("forward")
    scratch = npu_mod.platform_scratch(program, plan) if npu_mod.linked_backends(board, plan) else 0
    pte_region, placements = place_program(board, plan, len(pte), npu_scratch=scratch)
    arenas: dict = {}
    for placed in placements:
        arenas[placed.region] = arenas.get(placed.region, 0) + placed.size
    demands = estimate_demands(board, len(pte), arenas, MIN_CODE_BYTES, pte_region=pte_region)
    check_fit(board, demands)


def _update_report(out_dir: Path, board: Board, update) -> None:
    path = out_dir / "report.json"
    report = json.loads(path.read_text()) if path.is_file() else {}
    update(report.setdefault("firmware", {}).setdefault(board.name, {}))
    atomic.write_bytes(path, json.dumps(report, indent=2, sort_keys=True).encode() + b"\n")


def _record_sizes(out_dir: Path, board: Board, sizes: dict, stack: Optional[dict] = None) -> None:
    """stack: the call-graph analysis (stack.json) of the build, where there is one."""

    def update(entry: dict) -> None:
        entry.clear()
        entry.update(sizes)
        # the clearer twin of ram.stack, next to the stack_used_bytes a run adds (report_fields.py)
        entry["stack_reserved_bytes"] = sizes.get("ram", {}).get("stack")
        entry["stack_analysed_bytes"] = stack["worst"] if stack else None
        ram = sizes.get("ram", {})
        arenas = ram.get("arenas")
        entry["ram_over_arena"] = round(ram["total"] / arenas, 3) if arenas and "total" in ram else None

    _update_report(out_dir, board, update)


def record_run(out_dir: Union[str, Path], board: Union[Board, str], run) -> None:
    """A run measures what the map cannot: the stack's high-water mark (painted stack) and the instructions."""
    board = load_firmware_board(board)

    def update(entry: dict) -> None:
        entry["stack_used_bytes"] = run.stack_used
        if run.instructions_per_inference is not None:
            entry["instructions_per_inference"] = run.instructions_per_inference

    _update_report(Path(out_dir), board, update)


def build_for_board(out_dir: Union[str, Path], board: Union[Board, str], *, cmsis_nn=None) -> BuildResult:
    """cmsis_nn: an installed CMSIS-NN (source tree or pack folder) to link instead of cmsis_nn_kernels/."""
    board = load_firmware_board(board)
    out = export_dir(out_dir)
    check_scratch_target(out, board)
    check_model_fits(out, board)
    result = build_model_firmware(out, board, cmsis_nn=cmsis_nn)
    _record_sizes(out, board, size_report(parse_map(result.map), board, elf=result.elf), load_report(result.elf))
    return result
