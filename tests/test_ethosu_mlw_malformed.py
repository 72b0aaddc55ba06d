"""Malformed input to our decoder of Vela's compressed weight streams (see test_ethosu_mlw.py): a negative
code, and no access outside its buffers under ASan/UBSan, for truncated, random and mutated bytes and for too
small an output.

Vela's decoder exits the process on a truncated stream, so it only ever sees streams known to be whole: those
its encoder wrote, or (in a child process) mutated ones our decoder accepted.
"""

from __future__ import annotations

import ctypes
import pickle
import struct
import subprocess
import sys
from typing import List, Tuple

import numpy as np
import pytest

from mlw_harness import (  # tests/support
    CAPACITY,
    CFLAGS,
    CODES,
    KINDS,
    MALFORMED,
    OK,
    SANITIZE,
    SIM,
    SOURCE,
    TRUNCATED,
    build_lib,
    decode,
    encode,
    weights,
)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return build_lib(tmp_path_factory)


# --- malformed input -------------------------------------------------------------------------------------


def valid_pool(rng: np.random.Generator) -> List[Tuple[bytes, int]]:
    """Encoded streams of every kind, small enough to mutate many times: (stream, value count)."""
    pool = []
    for kind in KINDS:
        for n in (1, 13, 200, 3000):
            values = weights(kind, n, rng).astype(np.int16)
            pool.append((encode(values), n))
    return pool


def mutate(stream: bytes, rng: np.random.Generator) -> bytes:
    s = bytearray(stream)
    how = int(rng.integers(8))
    if how == 0 and s:  # flip 1..3 bits
        for _ in range(int(rng.integers(1, 4))):
            at = int(rng.integers(len(s) * 8))
            s[at // 8] ^= 1 << (at % 8)
    elif how == 1 and s:  # overwrite a byte
        s[int(rng.integers(len(s)))] = int(rng.integers(256))
    elif how == 2:  # cut the end
        del s[int(rng.integers(len(s) + 1)) :]
    elif how == 3 and s:  # cut a middle part
        a = int(rng.integers(len(s)))
        del s[a : a + int(rng.integers(1, 32))]
    elif how == 4 and s:  # repeat a part
        a = int(rng.integers(len(s)))
        s[a:a] = s[a : a + int(rng.integers(1, 32))]
    elif how == 5:  # append random bytes
        s += rng.integers(0, 256, int(rng.integers(1, 40)), dtype=np.uint8).tobytes()
    elif how == 6 and s:  # a run of zero or 0xff bytes
        a = int(rng.integers(len(s)))
        s[a : a + 8] = bytes([0 if rng.random() < 0.5 else 255]) * len(s[a : a + 8])
    else:  # a header field: the first two bytes hold ZDIV, SLICELEN and the start of WDIV
        s[: min(2, len(s))] = rng.integers(0, 256, min(2, len(s)), dtype=np.uint8).tobytes()
    return bytes(s)


def malformed_cases(count: int = 2000, seed: int = 7) -> List[Tuple[bytes, int]]:
    """(bytes, capacity): random bytes, then mutated valid streams, with capacities from 0 to ample."""
    rng = np.random.default_rng(seed)
    pool = valid_pool(rng)
    cases = []
    for i in range(count):
        if i < count // 4:
            stream = rng.integers(0, 256, int(rng.integers(0, 200)), dtype=np.uint8).tobytes()
            n = 1 << 16
        else:
            stream, n = pool[int(rng.integers(len(pool)))]
            for _ in range(int(rng.integers(1, 4))):
                stream = mutate(stream, rng)
        capacity = int(rng.choice([0, max(0, n - 1), n, 2 * n + 64, 1 << 16]))
        cases.append((stream, capacity))
    return cases


@pytest.fixture(scope="module")
def malformed_results(lib):
    cases = malformed_cases()
    return cases, [decode(lib, stream, capacity) for stream, capacity in cases]


def test_truncated_streams_fail_until_the_end_marker(lib):
    rng = np.random.default_rng(3)
    for kind in KINDS:
        values = weights(kind, int(rng.integers(1, 700)), rng).astype(np.int16).tolist()
        stream = encode(values)
        results = [decode(lib, stream[:k], len(values)) for k in range(len(stream) + 1)]
        codes = [rc for rc, _ in results]
        first_ok = codes.index(OK)  # the byte holding the end marker: the padding after it is optional
        assert all(rc < 0 for rc in codes[:first_ok]) and TRUNCATED in codes[:first_ok], kind
        assert all(rc == OK and got.tolist() == values for rc, got in results[first_ok:]), kind
        assert len(stream) - first_ok < 16


def test_random_and_mutated_bytes_give_a_code_or_vela_decoders_values(lib, malformed_results, tmp_path):
    cases, results = malformed_results
    codes = [rc for rc, _ in results]
    assert set(codes) <= {OK, TRUNCATED, MALFORMED, CAPACITY}
    for code in (OK, TRUNCATED, MALFORMED, CAPACITY):
        assert codes.count(code) >= 20, (code, {c: codes.count(c) for c in set(codes)})
    # what we accept, Vela's decoder decodes to the same values (in a child: it exits on a bad stream)
    accepted = [(stream, got) for (stream, _), (rc, got) in zip(cases, results) if rc == OK]
    src, dst = tmp_path / "streams.pkl", tmp_path / "decoded.pkl"
    src.write_bytes(pickle.dumps([s for s, _ in accepted]))
    child = (
        "import pickle, sys\nfrom ethosu import mlw_codec\n"
        "streams = pickle.load(open(sys.argv[1], 'rb'))\n"
        "pickle.dump([mlw_codec.decode(bytearray(s)) for s in streams], open(sys.argv[2], 'wb'))\n"
    )
    run = subprocess.run([sys.executable, "-c", child, str(src), str(dst)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-500:] + run.stderr[-500:]
    theirs = pickle.loads(dst.read_bytes())
    assert [got.tolist() for _, got in accepted] == theirs


def test_capacity(lib):
    rng = np.random.default_rng(5)
    for kind in ("int8", "sparse", "long_runs", "zeros"):
        values = weights(kind, 50000, rng).astype(np.int16).tolist()
        stream = encode(values)
        for capacity in (0, 1, len(values) // 2, len(values) - 1):
            assert decode(lib, stream, capacity)[0] == CAPACITY, (kind, capacity)
        rc, got = decode(lib, stream, len(values))
        assert rc == OK and got.tolist() == values


def test_arguments(lib):
    count = ctypes.c_size_t(7)
    stream = encode([1, 2, 3])
    out = (ctypes.c_int16 * 4)()
    assert lib.mx_mlw_decode(stream, len(stream), out, 4, None) == CODES["ERR_ARGUMENT"]
    assert lib.mx_mlw_decode(None, 1, out, 4, ctypes.byref(count)) == CODES["ERR_ARGUMENT"] and count.value == 0
    assert lib.mx_mlw_decode(stream, len(stream), None, 4, ctypes.byref(count)) == CODES["ERR_ARGUMENT"]
    assert lib.mx_mlw_decode(None, 0, None, 0, ctypes.byref(count)) == TRUNCATED  # no end marker
    assert lib.mx_mlw_decode(b"\xff", 1, None, 0, ctypes.byref(count)) == OK and count.value == 0
    assert lib.mx_mlw_decode(stream, len(stream), None, 0, ctypes.byref(count)) == CAPACITY
    texts = {lib.mx_mlw_error_text(c) for c in CODES.values()}
    assert len(texts) == len(CODES) and lib.mx_mlw_error_text(-99) == b"unknown error"


# --- ASan/UBSan: a C driver over the same bytes, each in a buffer of exactly its size ----------------------

DRIVER = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlw_decode.h"

/* Records of: u32 stream bytes, u32 output capacity, the bytes. Each stream and output gets a heap block of
 * exactly its size, so a read or write past either is an ASan error. Prints "code count checksum". */
int main(int argc, char **argv) {
  FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
  uint32_t head[2];
  if (f == NULL) return 2;
  while (fread(head, sizeof head, 1, f) == 1) {
    uint8_t *stream = malloc(head[0] ? head[0] : 1);
    int16_t *out = head[1] ? malloc((size_t)head[1] * sizeof(int16_t)) : NULL;
    if (stream == NULL || (head[1] && out == NULL) || fread(stream, 1, head[0], f) != head[0]) return 2;
    size_t count = 0;
    int rc = mx_mlw_decode(stream, head[0], out, head[1], &count);
    uint32_t sum = 0;
    for (size_t i = 0; i < count; i++) sum = sum * 31u + (uint16_t)out[i];
    printf("%d %zu %u\n", rc, count, (unsigned)sum);
    free(stream);
    free(out);
  }
  fclose(f);
  return 0;
}
"""


def checksum(values: np.ndarray) -> int:
    s = 0
    for v in values.astype(np.uint16).tolist():
        s = (s * 31 + v) & 0xFFFFFFFF
    return s


def test_sanitizers_on_malformed_and_valid_streams(malformed_results, tmp_path):
    cases, results = malformed_results
    rng = np.random.default_rng(11)
    valid = [(s, n) for s, n in valid_pool(rng)]
    exe = tmp_path / "mlw_check"
    (tmp_path / "driver.c").write_text(DRIVER)
    build = subprocess.run(
        ["cc", *CFLAGS, *SANITIZE, f"-I{SIM}", str(tmp_path / "driver.c"), str(SOURCE), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    records = cases + valid
    (tmp_path / "in.bin").write_bytes(b"".join(struct.pack("<II", len(s), c) + s for s, c in records))
    run = subprocess.run([str(exe), str(tmp_path / "in.bin")], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and "runtime error" not in run.stderr, run.stderr[-2000:]
    lines = run.stdout.split("\n")[:-1]
    assert len(lines) == len(records)
    expected = [(rc, len(got), checksum(got)) for rc, got in results]
    expected += [(OK, n, None) for _, n in valid]
    for line, (rc, count, sum_) in zip(lines, expected):
        got_rc, got_count, got_sum = map(int, line.split())
        assert (got_rc, got_count) == (rc, count) and sum_ in (None, got_sum), line
