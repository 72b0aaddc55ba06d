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
            return folder / f"firmware{suffix}"
    raise UsageError(
        f"no firmware{suffix} for {board.name} in {out}: build it first (`mcu-export build OUT --board {board.name}`)"
    )


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
        uf2 = firmware_file(out, b, ".uf2")
        target = drive.pick_drive(b, drive_path)
        written = drive.copy_to_drive(uf2, target)
        print(
            f"wrote {uf2.stat().st_size} bytes to {written} in one write and synced it (fsync); the {b.name} ", end=""
        )
        print("reboots into the new firmware once the drive has the last block")
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
