"""`mcu-export flash OUT --board B`: put a built firmware on a board.

- `uf2` boards (the Pico 2): the `.uf2` copied onto the boot drive the board shows in BOOTSEL mode (`drive.py`), or,
  with no drive mounted, `picotool load -x` over USB when picotool is on PATH (`tools.py`).
- `pyocd` boards, and any board with a `pyocd_target` through `--with pyocd`: the ELF through a debug probe.

Every way ends in one line when its drive, tool or probe is missing (a FlashError: exit 2, no traceback).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Optional, Union

from mcu_export.boards import Board, load_firmware_board
from mcu_export.errors import FlashError, UsageError
from mcu_export.firmware import uf2
from mcu_export.flash import drive, tools

WAYS = ("drive", "picotool", "pyocd")


def firmware_file(out: Union[str, Path], board: Board, suffix: str) -> Path:
    """The built firmware (`firmware.uf2` or `.elf`) for `board`: OUT may be an export folder (OUT/firmware/BOARD/),
    a firmware project folder, its artifacts/ folder, or the file itself."""
    out = Path(out)
    if out.is_file():
        if out.suffix != suffix:
            raise UsageError(f"{out} is not a {suffix} file (this way of flashing {board.name} needs one)")
        return out
    for folder in (out / "firmware" / board.name / "artifacts", out / "artifacts", out):
        if (folder / f"firmware{suffix}").is_file():
            _check_project_board(folder, board)
            return folder / f"firmware{suffix}"
    raise UsageError(
        f"no firmware{suffix} for {board.name} in {out}: build it first (`mcu-export build OUT --board {board.name}`)"
    )


def _check_project_board(artifacts: Path, board: Board) -> None:
    """A firmware project names its board in board/<name>.toml: another board's firmware is refused."""
    project = artifacts.parent if artifacts.name == "artifacts" else artifacts
    names = [p.stem for p in (project / "board").glob("*.toml")]
    if names and board.name not in names:
        raise UsageError(f"{project} is firmware for '{names[0]}', not {board.name}")


def check_uf2_family(uf2_path: Path, board: Board) -> None:
    """The boot ROM silently ignores blocks of a family it does not take: a .uf2 for another chip is refused here."""
    try:
        families = {b.family_id for b in uf2.read_uf2(uf2_path.read_bytes())} - {uf2.ABSOLUTE_FAMILY_ID}
    except ValueError as exc:
        raise UsageError(f"{uf2_path} is not a valid UF2 file: {exc}") from None
    if families != {board.flash.uf2_family_id}:
        found = ", ".join(f"0x{f:08x}" for f in sorted(families)) or "none"
        raise UsageError(f"{uf2_path} has UF2 family {found}, not {board.name}'s 0x{board.flash.uf2_family_id:08x}")


def choose_way(board: Board, way: Optional[str], drive_path: Optional[str]) -> str:
    """The board's way unless --with says otherwise: for a uf2 board the drive when one is given or mounted, else
    picotool when it is on PATH (and the board takes it)."""
    if way is not None:
        if way == "drive" and board.flash.method != "uf2":
            raise UsageError(f"board '{board.name}' has no UF2 boot drive (its flash method is {board.flash.method})")
        if way == "picotool" and not board.flash.picotool:
            raise UsageError(f"board '{board.name}' is not written by picotool (no [flash] picotool = true)")
        if way == "pyocd" and board.flash.pyocd_target is None:
            raise UsageError(f"board '{board.name}' has no [flash] pyocd_target")
        return way
    if board.flash.method == "none":
        raise UsageError(f"board '{board.name}' has no way to be flashed (its [flash] method is none)")
    if board.flash.method == "pyocd":
        return "pyocd"
    if drive_path is None and board.flash.picotool and shutil.which("picotool") and not drive.find_drives(board):
        return "picotool"
    return "drive"


def flash_command(
    out: Union[str, Path],
    *,
    board: str,
    way: Optional[str] = None,
    drive_path: Optional[str] = None,
    probe: Optional[str] = None,
) -> int:
    b = load_firmware_board(board)
    if way is not None and way not in WAYS:
        raise UsageError(f"--with {way}: expected one of {', '.join(WAYS)}")
    chosen = choose_way(b, way, drive_path)
    if chosen == "drive":
        image = firmware_file(out, b, ".uf2")
        check_uf2_family(image, b)
        target = drive.pick_drive(b, drive_path)
        written = drive.copy_to_drive(image, target)
        print(f"wrote {image.stat().st_size} bytes to {written} in one write and synced it (fsync); ", end="")
        print(f"the {b.name} reboots into the new firmware once the drive has the last block")
    elif chosen == "picotool":
        elf = firmware_file(out, b, ".elf")
        tools.picotool_load(elf)
        print(f"picotool loaded {elf} and started it")
    else:
        elf = firmware_file(out, b, ".elf")
        assert b.flash.pyocd_target is not None  # choose_way checked
        uid = tools.pyocd_load(elf, b.flash.pyocd_target, probe)
        print(f"pyocd wrote {elf} through probe {uid} (target {b.flash.pyocd_target}) and reset it")
    sys.stdout.flush()
    return 0


__all__ = ["FlashError", "flash_command", "firmware_file", "choose_way"]
