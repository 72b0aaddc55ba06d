"""Flashing through a program: picotool (RP2040/RP2350 in BOOTSEL mode, over USB) or pyocd (a CMSIS-DAP, ST-Link
or J-Link probe on SWD). Each missing piece — the tool, the pack that teaches pyocd the target, the probe — is one
line saying how to get it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Optional

from mcu_export.errors import FlashError


def picotool_load(elf: Path) -> None:
    """`picotool load -x FILE.elf`: writes the ELF's loadable segments and runs them. The ELF rather than the .uf2:
    the UF2's leading RP2350-E10 block is a workaround for the boot drive, which picotool does not need."""
    exe = shutil.which("picotool")
    if exe is None:
        raise FlashError(
            "picotool is not on PATH: install your distribution's picotool package (or build raspberrypi/picotool), "
            "or use the boot drive"
        )
    run = subprocess.run([exe, "load", "-x", "-t", "elf", str(elf)], capture_output=True, text=True)
    if run.returncode != 0:
        said = (run.stderr.strip() or run.stdout.strip() or f"exit code {run.returncode}").splitlines()[-1]
        raise FlashError(f"picotool load failed: {said} (is the board in BOOTSEL mode?)")


def _known_target(name: str) -> bool:
    """pyocd's builtin targets, then those of the CMSIS packs cmsis-pack-manager has installed."""
    from pyocd.target import TARGET

    if name.lower() in TARGET:
        return True
    try:
        from pyocd.target.pack.pack_target import ManagedPacks

        return any(d.part_number.lower() == name.lower() for d in ManagedPacks.get_installed_targets())
    except Exception:  # no pack cache, or a pyocd without it: the target is then unknown
        return False


def pyocd_load(elf: Path, target: str, probe: Optional[str]) -> str:
    """Programs the ELF through the first (or the given) probe with pyocd's API, then resets the target; returns the
    probe's unique id."""
    try:
        from pyocd.core.helpers import ConnectHelper
        from pyocd.core.session import Session
        from pyocd.flash.file_programmer import FileProgrammer
    except ImportError:
        raise FlashError("pyocd is not installed: pip install 'mcu-export[flash]'") from None
    if not _known_target(target):
        raise FlashError(
            f"pyocd does not know target '{target}': install its CMSIS pack with `pyocd pack install {target}`"
        )
    # Listing the probes ourselves (not session_with_chosen_probe): it prints its own "No connected debug probes".
    probes = ConnectHelper.get_all_connected_probes(blocking=False, unique_id=probe, print_wait_message=False)
    if not probes:
        which = f"probe {probe}" if probe else "debug probe"
        raise FlashError(f"no {which} connected (pyocd found none): plug in the probe and wire SWD to the board")
    try:
        with Session(probes[0], target_override=target) as session:
            FileProgrammer(session).program(str(elf), file_format="elf")
            session.target.reset()
            return session.probe.unique_id
    except Exception as exc:  # pyocd's errors (transfer, target, flash algorithm) are many: one line of any
        raise FlashError(f"pyocd failed with target '{target}': {exc}") from None
