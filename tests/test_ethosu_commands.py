"""The Ethos-U command-stream decoder (fvp/ethosu_sim/npu_*.c), built with the host cc and driven through ctypes.

Its facts checked against Vela 5.2's own (opcode numbers and names, parameter fields, enumerations); every field
of the operations of small graphs compared with the graphs' parameters; malformed streams refused with the
status, the opcode's name and the word index; mutated streams decoded under ASan/UBSan without a fault. The
example models' streams and Vela's register-level API: tests/test_ethosu_commands_vela.py.
"""

from __future__ import annotations

import ast
import ctypes
import random
import re
import struct
import subprocess
import sys
from typing import List

import pytest

import ethosu_sim_harness as harness  # tests/support
from ethosu_commands_tools import (  # tests/support
    BLOCK_OPS,
    CMD1,
    SIM,
    DecodeError,
    Npu,
    ifm_shape,
    kernel_shape,
    ofm_shape,
    opcode_list,
    statuses,
)
from ethosu_graphs import max_pool_graph, op_graph  # tests/support

pytest.importorskip("ethosu.vela")


@pytest.fixture(scope="module")
def npu() -> Npu:
    return Npu(harness.build())


# ---- facts: Vela's numbers and fields ----------------------------------------------------------------------------
def test_every_opcode_is_velas_and_named(npu):
    from ethosu.vela.ethos_u55_regs.ethos_u55_regs import cmd0, cmd1

    listed = {name: code for _, name, code, _ in opcode_list()}
    vela = {c.name: c.value for c in cmd0} | {c.name: c.value | CMD1 for c in cmd1}
    assert listed == vela
    for name, code in listed.items():
        assert npu.name(code) == name
    for unknown in (0x004, 0x106, 0x110, 0x190, 0x3FF, CMD1 | 0x007, CMD1 | 0x094, CMD1 | 0x3FF):
        assert npu.name(unknown) is None


def test_status_texts_are_the_list(npu):
    texts = dict(re.findall(r'^MX_NPU_STATUS\(\w+,\s*(\d+),\s*"([^"]*)"\)', (SIM / "npu_errors.def").read_text(), re.M))
    assert len(texts) == len(statuses()) > 10
    for code, text in texts.items():
        assert npu.lib.mx_npu_status_text(int(code)).decode() == text == npu.lib.mx_npu_status_text(-int(code)).decode()
    assert npu.lib.mx_npu_status_text(-(1 << 31)).decode() == "unknown command-stream decoder status"


def test_parameter_fields_never_widen_velas():
    """Every parameter bit the decoder accepts is a field in Vela's register layout (ethos_u55_regs.py), or one
    Vela's generator writes although that layout calls it reserved: bits 32-47 of a cmd1 address
    (cmd1_with_address) and the DMA_WAIT count (cmd_wait). Narrower where the hardware's fields are (pads,
    regions, the kernel stride's reserved bits)."""
    import ethosu.vela.ethos_u55_regs.ethos_u55_regs as regs
    from ethosu.vela.register_command_stream_generator import CommandStreamEmitter

    emit = CommandStreamEmitter()
    emit.cmd1_with_address(regs.cmd1.NPU_SET_IFM_BASE0, 0x12_3456_7890)
    emit.cmd_wait(regs.cmd0.NPU_OP_DMA_WAIT, 0, 3)
    assert emit.to_list() == [0x0012_4000, 0x3456_7890, 0x0003_0011]
    written_anyway = {"NPU_OP_DMA_WAIT"}
    for kind, name, _, bits in opcode_list():
        layout, at, field_bits = getattr(regs, name.lower() + "_t"), 0, 0
        for field, _, width in layout._fields_:
            if 16 <= at < 32 and not field.startswith(("reserved", "must_be_zero")):
                field_bits |= ((1 << width) - 1) << (at - 16)
            at += width
        if name in written_anyway or (kind == "SET1" and bits == 0xFFFF and field_bits == 0):
            continue
        assert bits & ~field_bits == 0, f"{name}: 0x{bits:04X} accepts bits outside Vela's fields 0x{field_bits:04X}"


ENUMS = {  # header list -> Vela's enum class
    "LAYOUT": "data_format",
    "POOLING": "pooling_mode",
    "ELEMENTWISE": "elementwise_mode",
    "CLIP": "clip_range",
    "ACC": "acc_format",
    "RESAMPLING": "resampling_mode",
    "ROUNDING": "rounding",
    "SCALE_MODE": "ifm_scale_mode",
    "STRIDE_MODE": "stride_mode",
    "ACTIVATION": "activation",
}


def test_enumerations_are_velas():
    import ethosu.vela.ethos_u55_regs.ethos_u55_regs as regs

    header = (SIM / "npu_commands.h").read_text()
    for ours, theirs in ENUMS.items():
        values = {int(v) for v in re.findall(rf"X\({ours}, \w+, (\d+)\)", header)}
        vela = {e.value for e in getattr(regs, theirs)}
        if theirs == "activation":  # Vela names the table range by its ends
            vela = {0, 3, 4, *range(regs.activation.LUT_START.value, regs.activation.LUT_END.value + 1)}
        assert values == vela, ours


# ---- small graphs through compile_tosa: every field against the graph's parameters --------------------------------
COMMON = {"ifm.dtype": "S8", "ifm.layout": "NHWC", "ofm.dtype": "S8", "ofm.layout": "NHWC", "ifm.region": 1,
          "ofm.region": 1, "ifm.upscale": "NONE", "activation.function": "NONE", "activation.min": -128,
          "activation.max": 127, "acc_format": "INT_32BIT"}  # fmt: skip
SMALL = {
    "conv": (lambda: op_graph("conv"), "NPU_OP_CONV", dict(
        ifm=(6, 6, 8), ofm=(4, 4, 4), kernel=(3, 3), stride=(1, 1), pad=(0, 0, 0, 0),
        fields={"ifm.zero_point": -5, "ofm.zero_point": -3, "ofm.rounding": "TFL", "ofm.global_scale": 0,
                "weight.region": 0, "scale.region": 0})),
    "depthwise": (lambda: op_graph("depthwise"), "NPU_OP_DEPTHWISE", dict(
        ifm=(6, 6, 8), ofm=(6, 6, 8), kernel=(3, 3), stride=(1, 1), pad=(1, 1, 1, 1),
        fields={"ifm.zero_point": -5, "ofm.zero_point": -3, "ofm.rounding": "TFL", "kernel.part_kernel_first": 0,
                "weight.region": 0, "scale.region": 0})),
    "add": (lambda: op_graph("add"), "NPU_OP_ELEMENTWISE", dict(
        ifm=(6, 6, 8), ofm=(6, 6, 8), kernel=None, stride=None, pad=None,
        fields={"mode": "ADD", "ifm.zero_point": -3, "ifm2.zero_point": 2, "ofm.zero_point": 1, "ifm2.dtype": "S8",
                "ifm2.region": 1, "ifm2.use_scalar": 0, "ifm2.broadcast_h": 0, "ifm2.broadcast_w": 0,
                "ifm2.broadcast_c": 0, "ofm.global_scale": 1, "ifm2.width0_m1": 5, "ifm2.height0_m1": 5})),
    "max_pool": (max_pool_graph, "NPU_OP_POOL", dict(
        ifm=(8, 8, 16), ofm=(4, 4, 16), kernel=(2, 2), stride=(2, 2), pad=(0, 0, 0, 0),
        fields={"mode": "MAX", "ifm.zero_point": 0, "ofm.zero_point": 0})),
    "avg_pool": (lambda: op_graph("avg"), "NPU_OP_POOL", dict(
        ifm=(6, 6, 8), ofm=(3, 3, 8), kernel=(2, 2), stride=(2, 2), pad=(0, 0, 0, 0),
        fields={"mode": "AVERAGE", "ofm.rounding": "NATURAL", "ofm.global_scale": 1})),
}  # fmt: skip


@pytest.mark.parametrize("accelerator", ["ethos-u55-128", "ethos-u65-256", "ethos-u65-512"])
@pytest.mark.parametrize("graph", list(SMALL))
def test_small_graph_fields(npu, graph, accelerator):
    from mcu_export.ethosu.vela import compile_tosa

    make, kind, p = SMALL[graph]
    result = compile_tosa(make(), accelerator)
    ops = npu.decode(npu.stream(result.blob.cmd_data)[0])
    (op,) = [o for o in ops if o["op"] in BLOCK_OPS]
    assert op["op"] == kind and ops[-1]["op"] == "NPU_OP_STOP"
    assert ifm_shape(op) == p["ifm"] and ofm_shape(op) == p["ofm"]
    tiles = (op["ifm.height1_m1"], op["ofm.width0_m1"], op["ofm.height0_m1"])  # one tile each
    assert tiles == (p["ifm"][0] - 1, p["ofm"][1] - 1, p["ofm"][0] - 1)
    h, w, c = p["ifm"]
    assert (op["ifm.stride_c"], op["ifm.stride_x"], op["ifm.stride_y"]) == (1, c, w * c)  # NHWC int8
    if p["kernel"] is not None:
        assert kernel_shape(op) == p["kernel"] and (op["kernel.stride_y"], op["kernel.stride_x"]) == p["stride"]
        assert (op["ifm.pad_top"], op["ifm.pad_left"], op["ifm.pad_bottom"], op["ifm.pad_right"]) == p["pad"]
        assert (op["kernel.dilation_x"], op["kernel.dilation_y"]) == (1, 1)
    want = COMMON | p["fields"]
    assert {k: op[k] for k in want} == want
    assert (op["parallel_mode"] == 1) == (accelerator == "ethos-u65-512")
    if kind in ("NPU_OP_CONV", "NPU_OP_DEPTHWISE"):  # weights and scales inside the weight blob, per core
        cores = 2 if accelerator == "ethos-u65-512" else 1
        for what in ("weight", "scale"):
            for core in range(cores):
                base, length = op[f"{what}.base{core}"], op[f"{what}.length{core}"]
                assert length > 0 and length % 16 == 0 and base + length <= len(result.blob.weight_data)
            assert cores == 2 or op[f"{what}.length1"] == 0
        # 10 bytes per output channel (32-bit scale, 6-bit shift, 40-bit bias), padded to 16 per core
        assert sum(op[f"scale.length{core}"] for core in range(cores)) >= 10 * p["ofm"][2]


# ---- refusals -------------------------------------------------------------------------------------------------------
STOP = 0xFFFF0000  # NPU_OP_STOP, mask 0xFFFF


def _minimal_stream():
    """A valid stream: one DMA and STOP."""
    return [0x00000130, 0x00010131, CMD1 | 0x030, 0x100, CMD1 | 0x031, 0x200, CMD1 | 0x032, 0x40, 0x010, STOP]


@pytest.mark.parametrize(
    "words, status, index, says",
    [
        (
            [0x4000 | 0x000, 0x1234],
            "MX_NPU_ERR_NO_STOP",
            2,
            "ends without NPU_OP_STOP; its last command is NPU_SET_IFM_BASE0",
        ),
        ([], "MX_NPU_ERR_NO_STOP", 0, "empty stream"),
        ([0x00000130, CMD1 | 0x030], "MX_NPU_ERR_TRUNCATED", 1, "NPU_SET_DMA0_SRC (0x4030): its payload word"),
        ([0x00000106, STOP], "MX_NPU_ERR_UNKNOWN_OPCODE", 0, "no cmd0 command has opcode 0x106"),
        ([0x00000130, CMD1 | 0x07F, 0, STOP], "MX_NPU_ERR_UNKNOWN_OPCODE", 1, "no cmd1 command has opcode 0x07F"),
        ([STOP, 0x00000130], "MX_NPU_ERR_AFTER_STOP", 1, "NPU_SET_DMA0_SRC_REGION (0x0130): follows NPU_OP_STOP"),
        ([0x8000 | 0x130, STOP], "MX_NPU_ERR_PAYLOAD_SIZE", 0, "unknown opcode (0x4130): payload size 2"),
        ([0x0400 | 0x130, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "sets bits 10-13"),
        ([0x00800100, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_SET_IFM_PAD_TOP (0x0100): parameter 0x0080"),
        ([0x0008010F, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_SET_IFM_REGION (0x010F)"),
        ([0x00200122, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_SET_KERNEL_STRIDE"),
        ([CMD1 | 0x026, 0x10000, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_SET_OPB_SCALE (0x4026): payload"),
        ([0x00030124, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "accumulator format 3"),
        ([0x00080105, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "size code 2 is not a type"),  # unsigned 32-bit
        ([0x000C0114, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_SET_OFM_PRECISION"),
        ([0x00060114, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "size code 3"),
        ([0x00050125, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "activation 5"),
        ([0x00030005, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "pooling mode 3"),
        ([0x000A0006, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "elementwise mode 10"),
        ([0x00010002, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_OP_CONV (0x0002): parameter 0x0001"),
        ([0x00000002, STOP], "MX_NPU_ERR_UNSET_REGISTER", 0, "NPU_OP_CONV (0x0002): reads NPU_SET_IFM_REGION"),
        (_minimal_stream()[2:], "MX_NPU_ERR_UNSET_REGISTER", 6, "reads NPU_SET_DMA0_SRC_REGION"),
    ],
)
def test_malformed_streams_are_refused_by_name_and_word(npu, words, status, index, says):
    with pytest.raises(DecodeError) as caught:
        npu.decode(words)
    e = caught.value
    assert (e.status, e.word_index) == (status, index) and says in e.message, e.message
    assert e.message.startswith(f"word {index}: ") and "\n" not in e.message
    if e.opcode != 0xFFFFFFFF:
        assert (npu.name(e.opcode) or "unknown opcode") in e.message


def test_a_small_ops_array_is_refused_not_overrun(npu):
    words = _minimal_stream()[:-1] + [0x010, STOP]  # two DMA_START, STOP
    assert [o["op"] for o in npu.decode(words)] == ["NPU_OP_DMA_START", "NPU_OP_DMA_START", "NPU_OP_STOP"]
    with pytest.raises(DecodeError) as caught:
        npu.decode(words, capacity=2)
    assert caught.value.status == "MX_NPU_ERR_CAPACITY" and caught.value.word_index == len(words) - 1
    assert "NPU_OP_STOP" in caught.value.message
    assert len(npu.decode(words, capacity=3)) == 3


def test_state_persists_and_written_registers_are_known(npu):
    """Registers keep their value across operations; mx_npu_written tells which the stream set."""
    words = _minimal_stream()[:-1] + [CMD1 | 0x032, 0x80, 0x010, STOP]
    buf, count = npu.decode_raw(words)
    ops = [npu.dump(ctypes.addressof(buf) + i * npu.op_size) for i in range(count)]
    assert [(o["dma.src"], o["dma.dst"], o["dma.len"]) for o in ops[:2]] == [(0x100, 0x200, 0x40), (0x100, 0x200, 0x80)]
    first = ctypes.c_void_p(ctypes.addressof(buf))
    assert npu.lib.mx_npu_written(first, CMD1 | 0x032) == 1 and npu.lib.mx_npu_written(first, CMD1 | 0x033) == 0
    assert npu.lib.mx_npu_written(first, 0x010) == -1  # an operation, not a register


def test_commands_vela_never_writes_still_decode(npu):
    """IRQ, PMU_MASK, DMA0_SIZE0/1 and DMA0_SKIP0/1 appear in no Vela 5.2 stream (its generator has no call for
    them); they decode by their layouts all the same, for the executor to run or refuse by name."""
    words = [0x00070132, 0x00090133, CMD1 | 0x033, 0x100, 0x00024000 | 0x034, 0x8, 0x00010013, 0x00050001, STOP]
    ops = npu.decode(words)
    assert [(o["op"], o["param"]) for o in ops] == [("NPU_OP_PMU_MASK", 1), ("NPU_OP_IRQ", 5), ("NPU_OP_STOP", 0xFFFF)]
    assert (ops[0]["dma.size0"], ops[0]["dma.size1"], ops[0]["dma.skip0"], ops[0]["dma.skip1"]) == (
        7,
        9,
        0x100,
        2 << 32 | 8,
    )


@pytest.mark.parametrize(
    "data, says",
    [
        (b"COP2" + bytes(12), "expected the tag COP1"),
        (struct.pack("<4I", 0x31504F43, 0x00100001, 1, 2)[:-4], "OPTIMIZER_CONFIG needs 2 words"),
        (struct.pack("<3I", 0x31504F43, 0x00050002, STOP), "COMMAND_STREAM of 5 words, 1 remain"),
        (struct.pack("<3I", 0x31504F43, 0x00010009, STOP), "unknown driver action 9"),
        (struct.pack("<2I", 0x31504F43, 0x00000005), "0 command streams"),
    ],
)
def test_malformed_payloads_are_refused(npu, data, says):
    with pytest.raises(DecodeError) as caught:
        npu.stream(data)
    assert caught.value.status == "MX_NPU_ERR_BAD_PAYLOAD" and says in caught.value.message


# ---- mutated streams under ASan/UBSan -------------------------------------------------------------------------------
FUZZ_CHILD = r"""
import ctypes, random, struct, sys
lib = ctypes.CDLL(sys.argv[1])
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
lib.mx_npu_decode.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                              ctypes.c_void_p]
lib.mx_npu_op_dump.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
lib.mx_npu_payload_find.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
lib.mx_npu_op_size.restype = ctypes.c_size_t
op_size = lib.mx_npu_op_size()
err = ctypes.create_string_buffer(512)
count = ctypes.c_size_t()
payload = ctypes.create_string_buffer(64)
rng = random.Random(int(sys.argv[3]))
seen = {}
data = open(sys.argv[2], "rb").read()
at = 0
while at < len(data):
    (n,) = struct.unpack_from("<I", data, at)
    blob = data[at + 4 : at + 4 + n]
    at += 4 + n
    # the payload finder on the raw bytes, then the decoder on whole words (exactly sized heap buffers)
    p = libc.malloc(max(n, 1))
    ctypes.memmove(p, blob, n)
    lib.mx_npu_payload_find(p, n, payload, err)
    libc.free(p)
    words = n // 4
    w = libc.malloc(max(words * 4, 1))
    ctypes.memmove(w, blob, words * 4)
    rc = lib.mx_npu_decode(w, words, None, 0, ctypes.byref(count), err)
    capacity = count.value if rc == 0 else rng.randrange(0, 8)
    capacity = max(capacity - rng.randrange(0, 2), 0)
    ops = libc.malloc(max(capacity * op_size, 1))
    rc = lib.mx_npu_decode(w, words, ops if capacity else None, capacity, ctypes.byref(count), err)
    seen[rc] = seen.get(rc, 0) + 1
    for i in range(min(count.value, capacity)):
        size = rng.choice((0, 1, 17, 300, 8192))
        text = libc.malloc(max(size, 1))
        lib.mx_npu_op_dump(ops + i * op_size, text if size else None, size)
        libc.free(text)
    libc.free(ops)
    libc.free(w)
print(sorted(seen.items()))
"""


def _mutations(streams: List[List[int]], n: int, seed: int) -> List[bytes]:
    """Vela streams with words flipped, cut, duplicated, spliced and replaced; some as bare words, some wrapped in a
    driver payload (then mutated too)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = list(rng.choice(streams))
        for _ in range(rng.randrange(1, 6)):
            kind, at = rng.randrange(6), rng.randrange(len(words))
            if kind == 0:
                words[at] ^= 1 << rng.randrange(32)
            elif kind == 1:
                words = words[: rng.randrange(len(words) + 1)] or [0]
            elif kind == 2:
                words.insert(at, words[rng.randrange(len(words))])
            elif kind == 3:
                words[at] = rng.getrandbits(32)
            elif kind == 4:
                words[at] = (words[at] & 0xFFFF) | (rng.getrandbits(16) << 16)  # another parameter
            else:
                other = rng.choice(streams)
                cut = rng.randrange(len(other))
                words = words[:at] + other[cut:]
        data = struct.pack(f"<{len(words)}I", *words)
        if i % 4 == 0:
            head = struct.pack("<5I", 0x31504F43, 0x00010001, rng.getrandbits(32), 0, (len(words) << 16) | 2)
            data = bytearray(head + data)
            for _ in range(rng.randrange(0, 3)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            data = bytes(data[: rng.randrange(len(data) + 1)] if rng.random() < 0.2 else data)
        out.append(data)
    return out


@pytest.mark.slow
def test_mutated_streams_never_fault_under_asan_and_ubsan(tmp_path, npu):
    from mcu_export.ethosu.vela import compile_tosa

    lib, asan = harness.sanitized_build()
    streams = [npu.stream(compile_tosa(g, acc).blob.cmd_data)[0]
               for g in (op_graph("conv"), op_graph("add"), max_pool_graph())
               for acc in ("ethos-u55-128", "ethos-u65-512")]  # fmt: skip
    corpus = b"".join(struct.pack("<I", len(m)) + m for m in _mutations(streams, 2000, seed=7))
    (tmp_path / "corpus.bin").write_bytes(corpus)
    (tmp_path / "child.py").write_text(FUZZ_CHILD)
    env = {"LD_PRELOAD": asan, "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0", "UBSAN_OPTIONS": "print_stacktrace=1"}
    run = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(lib), str(tmp_path / "corpus.bin"), "7"],
                         capture_output=True, text=True, timeout=600, env=env)  # fmt: skip
    assert run.returncode == 0 and "runtime error" not in run.stderr and "Sanitizer" not in run.stderr, run.stderr
    outcomes = dict(ast.literal_eval(run.stdout))  # [(return code, streams)]
    assert sum(outcomes.values()) == 2000 and outcomes.get(0, 0) > 0 and len(outcomes) >= 6, outcomes
