"""The UF2 boot drive: a board in its bootloader (the Pico 2 with BOOTSEL held) shows a USB drive holding
INFO_UF2.TXT; a `.uf2` written onto it is flashed, and the board reboots into it after the last block.

INFO_UF2.TXT on an RP2350 (RP2350 datasheet 5.7.6, and the boot ROM's source: a template with these defaults;
OTP white-labelling can change Model and Board-ID):

    UF2 Bootloader v1.0
    Model: Raspberry Pi RP2350
    Board-ID: RP2350

The drive is found by that file under the usual mount points, or given with --drive; its Board-ID must be the
board file's `[flash] uf2_board_id` (an RP2040's drive says RPI-RP2, and would refuse our family id silently).
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from typing import Dict, List, Optional

from mcu_export.boards import Board
from mcu_export.errors import FlashError

INFO = "INFO_UF2.TXT"
# A path list (like PATH) of folders whose sub-folders are searched instead of the usual mount points (tests).
ROOTS_ENV = "MCU_EXPORT_UF2_MOUNTS"


def mount_roots() -> List[Path]:
    """Where removable drives get mounted: udisks on Linux (/media/USER, /run/media/USER), by hand (/mnt), macOS."""
    if os.environ.get(ROOTS_ENV):
        return [Path(p) for p in os.environ[ROOTS_ENV].split(os.pathsep) if p]
    user = os.environ.get("USER") or getpass.getuser()
    return [Path("/media") / user, Path("/run/media") / user, Path("/media"), Path("/mnt"), Path("/Volumes")]


def read_info(folder: Path) -> Optional[Dict[str, str]]:
    """INFO_UF2.TXT as {key: value} (the first line under "bootloader"), or None when there is none."""
    try:
        text = (folder / INFO).read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    lines = text.splitlines()
    info = {"bootloader": lines[0].strip() if lines else ""}
    for line in lines[1:]:
        key, sep, value = line.partition(":")
        if sep:
            info[key.strip()] = value.strip()
    return info


def _uf2_drives() -> List[Path]:
    found: List[Path] = []
    for root in mount_roots():
        try:
            children = sorted(p for p in root.iterdir() if p.is_dir())
        except OSError:  # absent, or not ours to list
            continue
        found += [c for c in children if (c / INFO).is_file() and c not in found]
    return found


def find_drives(board: Board) -> List[Path]:
    """Mounted boot drives whose Board-ID is the board's."""
    return [d for d in _uf2_drives() if (read_info(d) or {}).get("Board-ID") == board.flash.uf2_board_id]


def pick_drive(board: Board, given: Optional[str]) -> Path:
    want = board.flash.uf2_board_id
    if given is not None:
        info = read_info(Path(given))
        if info is None:
            raise FlashError(f"{given} is not a UF2 boot drive (no {INFO}): mount the {board.name}'s drive there")
        if info.get("Board-ID") != want:
            raise FlashError(f"{given} is the boot drive of a '{info.get('Board-ID')}', not a {want}: refusing it")
        return Path(given)
    mine = find_drives(board)
    if len(mine) == 1:
        return mine[0]
    if mine:
        raise FlashError(f"{len(mine)} {want} boot drives mounted ({', '.join(map(str, mine))}): pass --drive PATH")
    roots = ", ".join(str(r) for r in mount_roots())
    others = [f"{d} ({(read_info(d) or {}).get('Board-ID')})" for d in _uf2_drives()]
    seen = f"; UF2 drives of other boards: {', '.join(others)}" if others else ""
    raise FlashError(
        f"no {want} boot drive mounted (looked under {roots}{seen}): hold BOOTSEL while plugging the {board.name} in, "
        "or pass --drive PATH (or --with picotool)"
    )


def copy_to_drive(uf2: Path, drive: Path) -> Path:
    """The file written in one go and fsync'ed: the drive is not a file system (it parses blocks as they arrive),
    so there is no temp-name-and-rename; the sync makes the OS send every block before we say it is done."""
    data = uf2.read_bytes()
    target = drive / uf2.name
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:  # one write() call; the loop only covers a short write
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise FlashError(f"writing {target} failed: {exc.strerror or exc} (is the drive still mounted?)") from None
    return target
