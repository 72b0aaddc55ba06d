"""Valid streams: our decoder of Vela's compressed weight streams (fvp/ethosu_sim/mlw_decode.c) against Vela's
own codec (ethosu.mlw_codec, ethos-u-vela 5.2): equal on streams the codec encodes from random data, on streams
written by hand and on the weight streams of real Vela output. Truncated, random and mutated bytes, too small an
output, and the ASan/UBSan run are in test_ethosu_mlw_malformed.py.
"""

from __future__ import annotations

import ctypes
import time
from typing import Dict, List, Tuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlw_harness import (  # tests/support
    KINDS,
    LENGTHS,
    MALFORMED,
    OK,
    TRUNCATED,
    Bits,
    build_lib,
    decode,
    encode,
    plain_slice,
    reference,
    weights,
)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return build_lib(tmp_path_factory)


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
