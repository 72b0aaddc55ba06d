"""The fuzz target's input framing (runtime_c/fuzz/mx_fuzz.c): a mode byte, the input pool's length, the
.pte program, the pool. Seeds are .pte files framed once per mode.

Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Iterable, List

MODE_LOAD, MODE_ZERO_INPUTS, MODE_POOL_INPUTS = 0, 1, 2
MODES = {"load": MODE_LOAD, "zero": MODE_ZERO_INPUTS, "pool": MODE_POOL_INPUTS}

# float32 values the kernels must survive (NaN, infinities, a denormal, -0, extremes); as bytes they also
# hold int8's extremes (0x80, 0x7f, 0xff), so int8 inputs cut from it reach saturation too.
_FLOATS = (1.0, -1.0, float("nan"), float("inf"), float("-inf"), 1e30, -1e30, 1e-40, -0.0, 0.5, 3.0, -2.5, 127.0)
POOL = struct.pack(f"<{len(_FLOATS)}f", *_FLOATS) + bytes([0x80, 0x7F, 0xFF, 0x00, 0x01, 0xFE, 0x81, 0x7E])


def frame(pte: bytes, mode: int, pool: bytes = POOL) -> bytes:
    if len(pool) > 0xFFFF:
        raise ValueError("the input pool holds at most 65535 bytes")
    return bytes([mode]) + struct.pack("<H", len(pool)) + pte + pool


def unframe(data: bytes) -> bytes:
    """The .pte program inside a framed input (the inverse of frame, also for a found input)."""
    rest = data[3:]
    pool = min(struct.unpack_from("<H", data, 1)[0], len(rest)) if len(data) >= 3 else 0
    return rest[: len(rest) - pool]


def write_seeds(programs: Iterable[Path], out_dir: Path, modes: Iterable[str] = MODES) -> List[Path]:
    """Each program framed once per mode, as OUT/<stem>.<mode>; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for pte in programs:
        data = Path(pte).read_bytes()
        for name in modes:
            path = out_dir / f"{Path(pte).stem}.{name}"
            path.write_bytes(frame(data, MODES[name]))
            written.append(path)
    return written
