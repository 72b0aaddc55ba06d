"""Our decoder of Vela's compressed weight streams (fvp/ethosu_sim/mlw_decode.c) against Vela's own codec
(ethosu.mlw_codec, ethos-u-vela 5.2): equal on streams the codec encodes from random data and on the weight
streams of real Vela output; a negative code, and no access outside its buffers under ASan/UBSan, for
truncated, random and mutated bytes and for too small an output.

Vela's decoder exits the process on a truncated stream, so it only ever sees streams known to be whole: those
its encoder wrote, or (in a child process) mutated ones our decoder accepted.
"""

from __future__ import annotations

import ctypes
import pickle
import re
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

mlw_codec = pytest.importorskip("ethosu.mlw_codec")

ROOT = Path(__file__).resolve().parents[1]
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


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
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


@pytest.mark.parametrize("kind", KINDS)
def test_equals_vela_decoder_on_encoded_random_data(lib, kind):
    rng = np.random.default_rng(sum(map(ord, kind)))
    for n in LENGTHS:
        values = weights(kind, n, rng).astype(np.int16)
        stream = encode(values)
        expected = reference(stream)
        assert expected == values.tolist()  # the codec itself round-trips
        rc, got = decode(lib, stream, n)  # exactly the room needed
        assert rc == OK, (kind, n, rc)
        assert got.tolist() == expected, (kind, n)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.lists(st.integers(-255, 255), min_size=1, max_size=300),
        st.lists(st.sampled_from([0, 0, 0, 0, 1, -1, 7, -128, 255]), min_size=1, max_size=600),
    )
)
def test_equals_vela_decoder_hypothesis(lib, values):
    stream = encode(values)
    rc, got = decode(lib, stream, len(values))
    assert rc == OK and got.tolist() == reference(stream) == values


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


def test_hand_written_stream_is_what_vela_decodes():
    values = [3, -1, 0, 255, -255, 17] * 5
    stream = plain_slice(values).end()
    assert reference(stream) == values


def test_hand_written_streams_decode(lib):
    values = [3, -1, 0, 255, -255, 17] * 5
    rc, got = decode(lib, plain_slice(values).end())
    assert rc == OK and got.tolist() == values
    # a 4-bit palette-less slice, then a second slice keeping its palette, then a second stream after the end
    two = plain_slice([1, -2, 3], width=4)
    two = plain_slice([-3, 0], width=4, new_palette=0, bits=two).end(pad_to=1)
    stream = two + plain_slice([9]).end()
    rc, got = decode(lib, stream)
    assert rc == OK and got.tolist() == reference(stream) == [1, -2, 3, -3, 0, 9]


def index_past_palette_range() -> bytes:
    """Plain 9-bit index 511 with direct offset 31: a folded value past 9 bits, which Vela's decoder gives."""
    return Bits().put(6, 3).put(0, 15).put(7, 3).put(0, 1).put(1, 1).put(31, 5).put(0, 5).put(7, 3).put(511, 9).end()


FIELD_CASES = {
    "zdiv 4": (lambda: plain_slice([1, 2], zdiv=4).end(), MALFORMED),  # ZDIV 4 and 5 are not defined
    "zdiv 5": (lambda: plain_slice([1, 2], zdiv=5).end(), MALFORMED),
    "wdiv 6": (lambda: plain_slice([1, 2], wdiv=6).end(), MALFORMED),  # WDIV 6 neither
    "first slice without palette": (lambda: plain_slice([1, 2], new_palette=0).end(), MALFORMED),
    "stream after an end marker without palette": (
        lambda: plain_slice([1, 2]).end(pad_to=1) + plain_slice([1], new_palette=0).end(),
        MALFORMED,
    ),
    "zero-run mode switch keeping the palette": (
        lambda: plain_slice([2], bits=plain_slice([1]), zdiv=0, new_palette=0).end(),
        MALFORMED,
    ),
    "direct index past 9 bits": (index_past_palette_range, OK),
    "no end marker": (lambda: plain_slice([1, 2]).raw(), TRUNCATED),
    "empty": (lambda: b"", TRUNCATED),
    "end markers only": (lambda: b"\xff" * 16, OK),
}


@pytest.mark.parametrize("case", FIELD_CASES)
def test_hand_written_field_values(lib, case):
    make, code = FIELD_CASES[case]
    stream = make()
    rc, got = decode(lib, stream)
    assert rc == code
    if rc == OK:
        assert got.tolist() == reference(stream)


def test_index_past_9_bits_is_malformed(lib):
    # GRC with divisor 0 and truncation off: quotient 2k + t as k positions "2" then one "t"; 256 twos -> 512
    b = Bits().put(6, 3).put(0, 15).put(0, 3).put(0, 1).put(1, 1).put(0, 5).put(0, 5).put(7, 3)
    for _ in range(256 // 12):
        b.put(0xFFF, 12).put(0xFFF, 12)  # 12 positions of "2"
    b.put(0x00F, 12).put(0xF, 4)  # 4 more "2" (256 in all), then a 0 ends the quotient at 512; 7 padding 0s
    assert decode(lib, b.end())[0] == MALFORMED


# --- real Vela output ---------------------------------------------------------------------------------------

NPU_OPS_WITH_WEIGHTS = (0x002, 0x003)  # NPU_OP_CONV, NPU_OP_DEPTHWISE
DMA_START = 0x010
WEIGHT_REGION, SCALE_REGION, DMA_SRC_REGION, DMA_DST_REGION = 0x128, 0x129, 0x130, 0x131
DMA_SRC, DMA_DST, DMA_LEN = 0x030, 0x031, 0x032
# (base, length) payload registers: WEIGHT/SCALE and, for the second core of a dual-core U65, WEIGHT1/SCALE1
WEIGHT_RANGES, SCALE_RANGES = ((0x020, 0x021), (0x090, 0x091)), ((0x022, 0x023), (0x092, 0x093))


def vela_graph(seed: int, filter_offset: int):
    """conv 3x3 (40 out channels: several OFM depth slices on most NPUs) -> depthwise 3x3 -> 1x1 conv, sparse
    weights (zero runs): the TOSA graph, then per operator its weights less the zero point, and its biases."""
    from mcu_export.ethosu.tosa import TosaGraph

    rng = np.random.default_rng(seed)
    g = TosaGraph()
    x = g.input([1, 10, 10, 16])
    q = dict(input_offset=5, filter_offset=filter_offset, output_offset=-3, activation=(-128, 127))
    ops = []

    def conv(kind, src, w, oc):
        b = rng.integers(-1000, 1000, oc).astype(np.int32)
        ops.append((w.astype(np.int64) + filter_offset, b))  # the operand is the zero point -filter_offset
        return g.conv(kind, src, w, b, multipliers=[1 << 30] * oc, shifts=[-8] * oc, stride=(1, 1),
                      pad_tblr=(1, 1, 1, 1) if w.shape[1] == 3 else (0, 0, 0, 0), dilation=(1, 1),
                      out_shape=(1, 10, 10, oc), **q)  # fmt: skip

    y = conv("conv", x, np.clip(np.round(rng.normal(0, 30, (40, 3, 3, 16))), -128, 127).astype(np.int8), 40)
    y = conv("depthwise", y, rng.integers(-128, 128, (3, 3, 40, 1)).astype(np.int8), 40)
    sparse = rng.integers(-128, 128, (24, 1, 1, 40)) * (rng.random((24, 1, 1, 40)) < 0.15)
    y = conv("conv", y, sparse.astype(np.int8), 24)
    g.output(y)
    return g.serialize(), ops


def weight_layout(cmd_data: bytes) -> Tuple[set, set]:
    """The (offset in weight_data, length) of every weight stream and every bias/scale range the command
    stream names; an address outside region 0 is traced back through the DMA that filled it."""
    from mcu_export.ethosu import payload

    regs: Dict[Tuple[int, int], int] = {}
    dmas: List[Tuple[int, int, int, int, int]] = []
    streams, scales = set(), set()

    def offset(region: int, address: int) -> int:
        if region == 0:
            return address
        for src_region, src, dst_region, dst, length in reversed(dmas):
            if dst_region == region and src_region == 0 and dst <= address < dst + length:
                return src + address - dst
        raise AssertionError(f"no DMA filled region {region} at {address:#x}")

    for word, value in payload.parse(cmd_data).commands:
        opcode = word & 0x3FF
        if value >= 0:
            assert word >> 16 == 0, "addresses past 32 bits"
            regs[(1, opcode)] = value
            continue
        regs[(0, opcode)] = word >> 16
        if opcode == DMA_START:
            dmas.append((regs[(0, DMA_SRC_REGION)] & 7, regs[(1, DMA_SRC)], regs[(0, DMA_DST_REGION)] & 7,
                         regs[(1, DMA_DST)], regs[(1, DMA_LEN)]))  # fmt: skip
        if opcode in NPU_OPS_WITH_WEIGHTS:
            for found, region, pairs in ((streams, WEIGHT_REGION, WEIGHT_RANGES), (scales, SCALE_REGION, SCALE_RANGES)):
                for base, length in pairs:
                    if (1, base) in regs:
                        found.add((offset(regs[(0, region)] & 7, regs[(1, base)]), regs[(1, length)]))
    return streams, scales


def scale_records(data: bytes) -> List[Tuple[int, int, int]]:
    """(bias, multiplier, shift) of the 10-byte records of a range, without the zero padding after them."""
    records = []
    for at in range(0, len(data) - 9, 10):
        r = data[at : at + 10]
        records.append((int.from_bytes(r[:5], "little", signed=True), int.from_bytes(r[5:9], "little"), r[9] & 63))
    while records and records[-1] == (0, 0, 0):
        records.pop()
    return records


VELA_CASES = [
    ("ethos-u55-64", None, 0),
    ("ethos-u55-128", None, 0),  # Shared_Sram: weights are DMA'd to SRAM before use
    ("ethos-u55-256", "Sram_Only", -20),  # weights read where they lie; 9-bit values after the zero point
    ("ethos-u65-256", None, 0),
    ("ethos-u65-512", None, 37),  # two cores: a range per core, alternate output channels
]


@pytest.mark.parametrize("accelerator, memory_mode, filter_offset", VELA_CASES)
def test_equals_vela_decoder_on_vela_weight_data(lib, accelerator, memory_mode, filter_offset):
    pytest.importorskip("tosa_serializer")
    from mcu_export.ethosu.vela import compile_tosa

    tosa, ops = vela_graph(seed=len(accelerator) + abs(filter_offset), filter_offset=filter_offset)
    blob = compile_tosa(tosa, accelerator, memory_mode=memory_mode).blob
    data = blob.weight_data
    streams, scales = weight_layout(blob.cmd_data)
    assert len(streams) >= len(ops) and len(scales) == len(streams)  # at least one per operator

    decoded: List[int] = []
    for at, length in sorted(streams):
        stream = data[at : at + length]
        rc, got = decode(lib, stream)
        assert rc == OK and got.tolist() == reference(stream), (accelerator, at, length)
        decoded += got.tolist()
    # the streams hold every operator's weights (in brick order, padded with zeros), and nothing else
    expected = np.concatenate([w.ravel() for w, _ in ops])
    assert sorted(v for v in decoded if v) == sorted(int(v) for v in expected if v)

    records = [r for at, length in sorted(scales) for r in scale_records(data[at : at + length])]
    assert sorted(b for b, _, _ in records) == sorted(int(b) for _, bias in ops for b in bias)
    assert {(m, s) for _, m, s in records} == {(1 << 30, 39)}  # CMSIS-NN's (2^30, -8): TOSA's shift 31 + 8

    # per range: scales, then its stream, ranges back to back from 0, each 16-byte aligned
    ranges = sorted(streams | scales)
    assert [at for at, _ in ranges] == [0] + [at + length for at, length in ranges[:-1]]
    assert ranges[-1][0] + ranges[-1][1] == len(data) and all(at % 16 == 0 for at, _ in ranges)
    scale_starts = {at for at, _ in scales}
    assert all(ranges[i][0] in scale_starts for i in range(0, len(ranges), 2))


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


# --- speed ---------------------------------------------------------------------------------------------------


def test_decode_speed_of_a_300_kb_stream(lib):
    rng = np.random.default_rng(9)
    values = np.clip(np.round(rng.normal(0, 30, 340000)), -127, 127).astype(np.int16)
    stream = encode(values)
    assert 280_000 <= len(stream) <= 340_000, len(stream)
    out = np.empty(len(values), np.int16)
    count = ctypes.c_size_t()
    ptr = out.ctypes.data_as(ctypes.POINTER(ctypes.c_int16))
    best = float("inf")
    for _ in range(10):
        start = time.perf_counter()
        rc = lib.mx_mlw_decode(stream, len(stream), ptr, len(out), ctypes.byref(count))
        best = min(best, time.perf_counter() - start)
    assert rc == OK and (out == values).all()
    print(f"\nmx_mlw_decode: {len(stream) / 1e3:.0f} KB -> {len(values)} weights in {best * 1e3:.2f} ms "
          f"({len(stream) / best / 1e6:.0f} MB/s of stream, {len(values) / best / 1e6:.0f} M weights/s)")  # fmt: skip
    assert best < 0.25  # a bound for a loaded 2-core machine, far above the ~5 ms it takes
