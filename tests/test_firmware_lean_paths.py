"""Paths that keep libgcc and error strings out of the firmware: the integer int64 → float/double casts
(runtime_c/kernels/portable/util/mx_int_float.h) equal C's casts bit for bit, and the host adds the text
to the code-only error line the firmware prints (errors.def is the one source of the texts)."""

import ctypes
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mcu_export.runners.firmware import decode_error_line, error_text

ROOT = Path(__file__).resolve().parents[1]
UTIL = ROOT / "runtime_c" / "kernels" / "portable" / "util"

_SHIM = r"""
#include "mx_int_float.h"
void to_f64(const int64_t *v, double *out, int n) { for (int i = 0; i < n; i++) out[i] = mx_i64_to_f64(v[i]); }
void to_f32(const int64_t *v, float *out, int n) { for (int i = 0; i < n; i++) out[i] = mx_i64_to_f32(v[i]); }
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("intfloat")
    (d / "shim.c").write_text(_SHIM)
    so = d / "shim.so"
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", f"-I{UTIL}", str(d / "shim.c"), "-o", str(so)], check=True)
    return ctypes.CDLL(str(so))


def _values(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    raw = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=20000, dtype=np.int64, endpoint=True)
    shifted = raw >> rng.integers(0, 64, size=raw.size).astype(np.int64)
    edges = [
        0,
        1,
        -1,
        2**24 + 1,
        2**24 + 3,
        -(2**24 + 1),
        2**53 + 1,
        2**53 + 3,
        -(2**53 + 1),
        2**63 - 1,
        -(2**63),
        -(2**63) + 1,
        0x7FFFFFFFFFFFFE00,
        0x7FFFFFFFFFFFFC00,
        0x7FFFFF8000000000,
    ]
    return np.concatenate([np.array(edges, dtype=np.int64), raw, shifted])


@pytest.mark.parametrize("seed", [0, 1])
def test_int64_casts_equal_c_casts(lib, seed):
    v = np.ascontiguousarray(_values(seed))
    f64, f32 = np.empty(v.size, np.float64), np.empty(v.size, np.float32)
    lib.to_f64(v.ctypes.data_as(ctypes.c_void_p), f64.ctypes.data_as(ctypes.c_void_p), ctypes.c_int(v.size))
    lib.to_f32(v.ctypes.data_as(ctypes.c_void_p), f32.ctypes.data_as(ctypes.c_void_p), ctypes.c_int(v.size))
    # numpy's casts are C's (round to nearest, ties to even)
    assert np.array_equal(f64.view(np.uint64), v.astype(np.float64).view(np.uint64))
    assert np.array_equal(f32.view(np.uint32), v.astype(np.float32).view(np.uint32))


def test_code_only_error_line_gets_its_text():
    said = "mx: error 0x0305 (instruction 3, op aten::addmm.out)"
    assert (
        decode_error_line(said)
        == "mx: error 0x0305 a kernel received tensors of inconsistent shapes (instruction 3, op aten::addmm.out)"
    )
    assert decode_error_line("mx: error 0x0109") == "mx: error 0x0109 the program has no method with that name"
    assert decode_error_line("mx: error 0x7777 (value 4)") == "mx: error 0x7777 unknown runtime error (value 4)"
    assert error_text(0x0302) == "a kernel received the wrong number of arguments"


def test_lines_with_text_or_io_errors_stay_as_they_are():
    full = "mx: error 0x0305 a kernel received tensors of inconsistent shapes (instruction 3, op aten::addmm.out)"
    assert decode_error_line(full) == full
    io = "mx: io error: wrong size: in0.bin (12 bytes, the tensor has 3136)"
    assert decode_error_line(io) == io
