"""Shared by test_ethosu_mlw.py and test_ethosu_mlw_malformed.py: our decoder (fvp/ethosu_sim/mlw_decode.c)
built for ctypes, Vela's codec (ethosu.mlw_codec) as the reference, weights of several kinds, and a bit writer
for streams written by hand from README.md's description."""

from __future__ import annotations

import ctypes
import re
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pytest

mlw_codec = pytest.importorskip("ethosu.mlw_codec")

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "fvp" / "ethosu_sim"
SOURCE = SIM / "mlw_decode.c"
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2"]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g", "-O1"]
CODES: Dict[str, int] = {
    m.group(1): int(m.group(2)) for m in re.finditer(r"MX_MLW_(\w+) = (-?\d+)", (SIM / "mlw_decode.h").read_text())
}
OK, TRUNCATED, MALFORMED, CAPACITY = (CODES[k] for k in ("OK", "ERR_TRUNCATED", "ERR_MALFORMED", "ERR_CAPACITY"))
CANARY = 0x5A5A  # written past the capacity; must survive every call
KINDS = ("int8", "int9", "gauss", "sparse", "zeros", "constant", "palette", "sections", "long_runs")
LENGTHS = (1, 2, 3, 11, 12, 13, 100, 1000, 4097, 32767, 32768, 32769, 70000)


# --- the library and a ctypes call ------------------------------------------------------------------------


def build_lib(tmp_path_factory):
    """mlw_decode.c as a shared library, with the ctypes signatures."""
    so = tmp_path_factory.mktemp("mlw") / "libmx_mlw.so"
    subprocess.run(["cc", *CFLAGS, "-shared", "-fPIC", str(SOURCE), "-o", str(so)], check=True)
    lib = ctypes.CDLL(str(so))
    lib.mx_mlw_decode.argtypes = [
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_int16),
        ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_size_t),
    ]
    lib.mx_mlw_error_text.restype = ctypes.c_char_p
    return lib


def decode(lib, stream: bytes, capacity: int = -1) -> Tuple[int, np.ndarray]:
    """(code, values) from our decoder, into an output of `capacity` values (default 2^20) followed by 16
    canary values."""
    stream = bytes(stream)
    if capacity < 0:
        capacity = 1 << 20
    out = np.full(capacity + 16, CANARY, np.int16)
    count = ctypes.c_size_t(12345)
    rc = lib.mx_mlw_decode(
        stream, len(stream), out.ctypes.data_as(ctypes.POINTER(ctypes.c_int16)), capacity, ctypes.byref(count)
    )
    assert (out[capacity:] == CANARY).all(), "wrote past out_capacity"
    assert rc <= 0 and (rc == OK or count.value == 0)
    return rc, out[: count.value].copy()


def reference(stream: bytes) -> List[int]:
    return mlw_codec.decode(bytearray(stream))


def encode(values) -> bytes:
    return bytes(mlw_codec.encode([int(v) for v in values]))


# --- data the codec is given ------------------------------------------------------------------------------


def weights(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "int8":
        return rng.integers(-128, 128, n)
    if kind == "int9":  # the codec's whole range: int8 weights less a zero point
        return rng.integers(-255, 256, n)
    if kind == "gauss":  # what trained weights look like
        return np.clip(np.round(rng.normal(0, 25, n)), -127, 127)
    if kind == "sparse":
        return rng.integers(-128, 128, n) * (rng.random(n) < 0.1)
    if kind == "zeros":
        return np.zeros(n, np.int64)
    if kind == "constant":
        return np.full(n, rng.integers(-255, 256))
    if kind == "palette":  # few distinct values: palette indices
        return rng.choice(rng.integers(-255, 256, int(rng.integers(2, 20))), n)
    if kind == "sections":  # distributions that change along the stream: palette restarts
        parts = [weights(str(k), int(rng.integers(1, 3000)), rng) for k in rng.choice(KINDS[:7], 6)]
        return np.resize(np.concatenate(parts), n)
    if kind == "long_runs":  # zero runs longer than a slice
        out = np.zeros(n, np.int64)
        at = rng.choice(n, max(1, n // 40000), replace=False)
        out[at] = rng.integers(1, 200, len(at))
        return out
    raise AssertionError(kind)


# --- a stream written by hand from README.md's description -------------------------------------------------


class Bits:
    """A bit writer in the stream's order: bytes from their least significant bit, fields LSB first."""

    def __init__(self):
        self.bits: List[int] = []

    def put(self, value: int, width: int) -> "Bits":
        self.bits += [(value >> i) & 1 for i in range(width)]
        return self

    def raw(self) -> bytes:
        """The bits so far, the last byte filled with zeros."""
        return bytes(sum(b << i for i, b in enumerate(self.bits[k : k + 8])) for k in range(0, len(self.bits), 8))

    def end(self, pad_to: int = 16) -> bytes:
        """An end marker, ones to the byte boundary, 0xff bytes to a multiple of `pad_to`: as the encoder ends."""
        self.put(7, 3)
        self.bits += [1] * (-len(self.bits) % 8)
        data = self.raw()
        return data + b"\xff" * (-len(data) % pad_to)


def folded(v: int) -> int:
    return abs(v) << 1 | (v < 0)


def plain_slice(values, width: int = 9, zdiv: int = 6, wdiv: int = 7, new_palette: int = 1, bits=None) -> Bits:
    """One slice of plain indices, no palette, no zero runs: each chunk's 12 (8 above 5 bits) positions are
    quotient-0 symbols whose `width`-bit remainders follow the next chunk's (empty) unary part."""
    b = bits or Bits()
    b.put(zdiv, 3).put(len(values) - 1, 15).put(wdiv, 3).put(0, 1).put(new_palette, 1)
    if new_palette:
        b.put(0, 5).put(0, 5).put(width - 2, 3)  # direct offset 0, no palette, entry/plain width
    for v in values:
        b.put(folded(v), width)
    return b
