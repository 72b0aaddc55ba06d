"""What the NPU firmware tests (test_firmware_ethosu, test_npu_seam) share: skip markers for missing tools, the
command stream inside a driver payload as the firmware hands it to the NPU, and the board memory an address is in."""

from __future__ import annotations

import shutil
import struct
from typing import List

import pytest

FIRMWARE_TOOLS = ("arm-none-eabi-gcc", "cmake", "ninja")


def missing(*tools: str) -> List[str]:
    return [t for t in tools if shutil.which(t) is None]


def needs(*tools: str) -> pytest.MarkDecorator:
    """Skips a test when any of `tools` is not on PATH, naming those missing."""
    absent = missing(*tools)
    return pytest.mark.skipif(bool(absent), reason=f"needs {', '.join(absent) or 'nothing'}")


def stream_words(cmd: bytes) -> bytes:
    """The COMMAND_STREAM's words of a driver payload (what QBASE/QSIZE point at)."""
    ws, at = struct.unpack(f"<{len(cmd) // 4}I", cmd), 1
    while ws[at] & 0xFF != 2:
        at += 3 if ws[at] & 0xFF == 1 else 1
    length = (ws[at] >> 16) | ((ws[at] >> 8) & 0xFF) << 16
    return cmd[4 * (at + 1) : 4 * (at + 1 + length)]


def memory_of(board: str, address: int) -> str:
    """The name of `board`'s memory that holds `address` (through either security alias), or "?"."""
    from mcu_export.boards import load_board

    for r in load_board(board).memory:
        for origin in (r.origin, r.origin | 0x10000000):  # either security alias
            if origin <= address < origin + r.length:
                return r.name
    return "?"
