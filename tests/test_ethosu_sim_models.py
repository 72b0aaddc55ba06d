"""Our Ethos-U55/U65/U85 command-stream executor (fvp/ethosu_sim, mx_npu_execute) on whole models, refusals and fuzzing;
the single operators and Vela's tiled layouts are in test_ethosu_sim.py (whose docstring describes the harness):
- the example models' NPU graphs as mcu_export.export delegates them (mnist_mlp, kws_dscnn with its integer
  softmax, resnet8, autoencoder), on random and saturating inputs, bit-exact against TOSA's reference model, each
  run well under a second: every model on ethos-u55-128, ethos-u65-256 and ethos-u85-256, and each of ethos-u55-32/
  -64/-256, ethos-u65-512 and ethos-u85-128/-512/-1024/-2048 on one model in turn (chained operations, FWD and MLW
  weights, one to four weight decoders);
- refusals: what the executor does not implement is an error naming the operation or mode, an access outside a
  region is an error (never a fault: mutated streams and weights under ASan/UBSan, slow).
"""

from __future__ import annotations

import random
import struct
import subprocess
import sys
import warnings
from pathlib import Path
from typing import List

import numpy as np
import pytest

import ethosu_sim_cases as cases  # tests/support
import ethosu_sim_harness as harness  # tests/support
from ethosu_graphs import op_graph  # tests/support

pytest.importorskip("ethosu.vela")
pytest.importorskip("tosa_reference_model")

ROOT = Path(__file__).resolve().parents[1]
MAIN = ("ethos-u55-128", "ethos-u65-256")
MAC_DEPENDENT = ("ethos-u55-32", "ethos-u55-64", "ethos-u55-256")
MODELS = ("mnist_mlp", "kws_dscnn", "resnet8", "autoencoder")
U85_ACCELERATORS = ("ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024", "ethos-u85-2048")
# Every model on one configuration of each NPU; every other configuration on one model, the models in turn (a
# configuration's MAC count and decoders change the streams, not which models they can hold).
OTHER_ACCELERATORS = MAC_DEPENDENT + ("ethos-u65-512",) + tuple(a for a in U85_ACCELERATORS if a != "ethos-u85-256")
MODEL_CASES = [(m, a) for m in MODELS for a in MAIN + ("ethos-u85-256",)]
MODEL_CASES += [(MODELS[i % len(MODELS)], a) for i, a in enumerate(OTHER_ACCELERATORS)]
reference = harness.reference


@pytest.fixture(scope="module")
def sim() -> harness.Executor:
    return harness.Executor(harness.build())


# ---- whole example models -------------------------------------------------------------------------------------------
# ---- whole example models -------------------------------------------------------------------------------------------
def exported_delegate(model: str, accelerator: str):
    import mcu_export
    from mcu_export.ethosu.blob import unpack
    from mcu_export.model_spec import load_model

    net, inputs = load_model(str(ROOT / "examples" / f"{model}.py"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        artifact = mcu_export.export(net, inputs, quantize="int8", backend=accelerator)
    return unpack(artifact.program.backend_delegate_data[0]), artifact.npu_graphs[0]


@pytest.mark.slow
@pytest.mark.parametrize("model, accelerator", MODEL_CASES)
def test_example_models_bit_exact(sim, model, accelerator):
    blob, graph = exported_delegate(model, accelerator)
    rng = np.random.default_rng(sum(map(ord, model + accelerator)))
    shapes = [r.shape[-4:] for r in blob.inputs]
    runs = [("random", [rng.integers(-128, 128, size=s, dtype=np.int8) for s in shapes]) for _ in range(3)]
    runs += [("all minimum", [np.full(s, -128, np.int8) for s in shapes])]
    runs += [("all maximum", [np.full(s, 127, np.int8) for s in shapes])]
    fast = 1 << 20  # the U65's Dedicated_Sram: at least what Vela asked for (not carried in the blob)
    for kind, inputs in runs:
        run = sim.run_blob(blob, inputs, fast)
        want = reference(graph, inputs)
        for g, w in zip(run.outputs, want):
            np.testing.assert_array_equal(g.reshape(w.shape), w, err_msg=f"{model} on {accelerator}, {kind} inputs")
        assert run.seconds < 0.5, f"{model} on {accelerator}: {run.seconds:.3f} s"


# ---- refusals ---------------------------------------------------------------------------------------------------------
def _words_with(sim, graph: bytes, accelerator: str, opcode: int, edit) -> tuple:
    """The blob and its command words with the parameter of the first command `opcode` (cmd0, or cmd1 with 0x4000)
    replaced by edit(parameter), or with edit's (word, ...) inserted before the first block operation."""
    blob, fast = harness.compiled(graph, accelerator)
    words = sim.stream(blob.cmd_data)
    out, i, done = [], 0, False
    while i < len(words):
        w = words[i]
        code = (w & 0x3FF) | (0x4000 if w & 0x4000 else 0)
        if not done and code == opcode:
            w = (w & 0xFFFF) | (edit(w >> 16) << 16)
            done = True
        out.append(w)
        if w & 0x4000:
            out.append(words[i + 1])
            i += 1
        i += 1
    assert done, hex(opcode)
    return blob, fast, out


def _first_op_index(words: List[int], opcodes) -> int:
    i = 0
    while i < len(words):
        if not words[i] & 0x4000 and words[i] & 0x3FF in opcodes:
            return i
        i += 2 if words[i] & 0x4000 else 1
    raise AssertionError("no operation")


def _refused(sim, blob, fast, words, status: str, *says: str, index=None):
    inputs = [np.zeros(r.shape[-4:], np.int8) for r in blob.inputs]
    with pytest.raises(harness.ExecError) as info:
        sim.run_blob(blob, inputs, fast, words=words)
    assert info.value.status == status, info.value
    for text in says:
        assert text in info.value.message, info.value.message
    if index is not None:
        assert info.value.word_index == index and info.value.message.startswith(f"word {index}: ")
    return info.value


@pytest.mark.parametrize(
    "graph, opcode, edit, says",
    [
        ("add", 0x006, lambda p: 5, ("NPU_OP_ELEMENTWISE", "LRELU")),  # ADD -> LRELU
        ("add", 0x125, lambda p: (p & ~0x1F) | 3, ("activation TANH",)),  # ACTIVATION -> TANH
        ("add", 0x125, lambda p: (p & ~0x1F) | 4, ("activation SIGMOID",)),
        ("conv", 0x107, lambda p: 1, ("NPU_OP_CONV", "upscale mode NEAREST")),  # IFM_UPSCALE
        ("max", 0x107, lambda p: 1, ("NPU_OP_POOL", "upscale mode NEAREST")),
        ("max", 0x104, lambda p: p + 1, ("POOL MAX from IFM depth 9 to OFM depth 8",)),  # IFM_DEPTH_M1
        ("add", 0x105, lambda p: (p & ~0xC) | 0x4, ("32-bit operand scale", "16-bit operands")),  # IFM int16
        ("conv", 0x105, lambda p: (p & ~0xC) | 0x4, ("NPU_OP_CONV", "16-bit IFM")),
    ],
)
def test_unimplemented_modes_are_refused_by_name(sim, graph, opcode, edit, says):
    blob, fast, words = _words_with(sim, op_graph(graph), "ethos-u55-128", opcode, edit)
    index = _first_op_index(words, (0x002, 0x003, 0x005, 0x006))
    _refused(sim, blob, fast, words, "MX_NPU_ERR_NOT_IMPLEMENTED", *says, index=index)


def test_dma_stride_modes_other_than_1d_are_refused(sim):
    from ethosu_sim_cases import table

    case = table(np.random.default_rng(0))
    blob, fast, words = _words_with(sim, case.graph, "ethos-u55-128", 0x130, lambda p: p | (1 << 9))  # 2D source
    _refused(sim, blob, fast, words, "MX_NPU_ERR_NOT_IMPLEMENTED", "NPU_OP_DMA_START", "stride mode 2D -> 1D")


def test_a_table_never_loaded_is_refused(sim):
    """ACTIVATION LUT_0 on an add whose stream never DMA'd a table into the SHRAM."""
    blob, fast, words = _words_with(sim, op_graph("add"), "ethos-u55-128", 0x125, lambda p: (p & ~0x1F) | 16)
    _refused(sim, blob, fast, words, "MX_NPU_ERR_OUT_OF_BOUNDS", "LUT_0", "no table")


def test_a_dma_into_shram_outside_the_table_banks_is_refused(sim):
    from ethosu_sim_cases import table

    case = table(np.random.default_rng(0))
    blob, fast = harness.compiled(case.graph, "ethos-u55-128")
    words = sim.stream(blob.cmd_data)
    at = next(i for i in range(len(words) - 1) if words[i] & 0x43FF == 0x4031)  # DMA0_DST
    words[at + 1] = 0x100
    _refused(sim, blob, fast, words, "MX_NPU_ERR_NOT_IMPLEMENTED", "outside the lookup-table banks")


def _insert_before_op(words: List[int], opcodes, *inserted: int) -> List[int]:
    at = _first_op_index(words, opcodes)
    return words[:at] + list(inserted) + words[at:]


@pytest.mark.parametrize(
    "graph, opcode, edit, says",
    [
        ("add", 0x006, lambda p: 5, ("NPU_OP_ELEMENTWISE (0x10006)", "LRELU")),  # ADD -> LRELU
        ("add", 0x006, lambda p: 11, ("ELEMENTWISE DIV",)),
        ("max", 0x005, lambda p: 6, ("POOL ARGMAX_X",)),
        ("max", 0x005, lambda p: 5, ("POOL MIN",)),  # modes our partitioner never sends: unchecked, refused
        ("add", 0x006, lambda p: 16, ("ELEMENTWISE CMP_EQ",)),
        ("add", 0x006, lambda p: 33, ("ELEMENTWISE AND",)),
        ("conv", 0x124, lambda p: p | 1, ("48-bit accumulator",)),  # ACC_FORMAT I48
        ("add", 0x125, lambda p: (p & ~0x1F) | 10, ("activation LUT_TANH",)),  # ACTIVATION function
        ("add", 0x125, lambda p: (p & ~0x1F) | 5, ("activation LUT_S8_S16",)),
        ("conv", 0x107, lambda p: 1, ("NPU_OP_CONV", "upscale mode NEAREST")),  # IFM_UPSCALE
        ("max", 0x107, lambda p: 2, ("NPU_OP_POOL", "upscale mode ZEROS")),
        ("max", 0x114, lambda p: p | 1 << 14, ("storage TILE3X1",)),  # OFM_PRECISION storage
        ("conv", 0x105, lambda p: p | 2 << 14, ("CHAINED IFM with no CHAINED OFM just before it",)),
        ("max", 0x114, lambda p: p | 2 << 9, ("OFM reverse W",)),
        ("max", 0x124, lambda p: p | 1 << 4, ("accumulator input KEEP",)),  # ACC_FORMAT: chaining in
        ("max", 0x124, lambda p: p | 1 << 6, ("accumulator output DISABLE",)),
        ("max", 0x4024, lambda p: (p & 0x1FFF) | 2 << 13, ("OFM rounding DOUBLE_ASYMMETRIC",)),  # OFM_SCALE
        ("conv", 0x105, lambda p: (p & ~0xC) | 0x4, ("NPU_OP_CONV", "16-bit IFM")),  # IFM int16
        ("conv", 0x002, lambda p: 1, ("weights from IFM2",)),
        ("conv", 0x4024, lambda p: p | 1 << 6, ("OFM double-round shift (1)",)),
    ],
)
def test_unimplemented_u85_modes_are_refused_by_name(sim, graph, opcode, edit, says):
    blob, fast, words = _words_with(sim, op_graph(graph), "ethos-u85-256", opcode, edit)
    index = _first_op_index(words, (0x002, 0x003, 0x005, 0x006))
    _refused(sim, blob, fast, words, "MX_NPU_ERR_NOT_IMPLEMENTED", *says, index=index)


@pytest.mark.parametrize(
    "inserted, status, says",
    [
        ((0x0007,), "MX_NPU_ERR_NOT_IMPLEMENTED", "NPU_OP_RESIZE (0x10007): operation not implemented"),
        ((0x4100, 0x40), "MX_NPU_ERR_NOT_IMPLEMENTED", "NPU_OP_BRANCH (0x14100): operation not implemented"),
        ((0x0106,), "MX_NPU_ERR_UNKNOWN_OPCODE", "no Ethos-U85 cmd0 command has opcode 0x106"),
        ((0x0021_0123,), "MX_NPU_ERR_UNKNOWN_OPCODE", "no Ethos-U85 cmd0 command has opcode 0x123"),  # PARALLEL_MODE
        ((0x0080_012F,), "MX_NPU_ERR_RESERVED_BITS", "NPU_SET_BLOCKDEP (0x1012F): parameter 0x0080"),
        ((0x0004_0114,), "MX_NPU_ERR_NOT_IMPLEMENTED", "unsigned 32-bit feature maps"),  # OFM_PRECISION
        ((0x0006_0114,), "MX_NPU_ERR_NOT_IMPLEMENTED", "64-bit feature maps"),
        ((0x0004_0108,), "MX_NPU_ERR_NOT_IMPLEMENTED", "NPU_OP_CONV (0x10002): an IFM broadcast (mode 4)"),
        ((0x0009_0180,), "MX_NPU_ERR_BAD_VALUE", "IFM2 broadcast mode 9"),
        ((0x4024, 0x8000_0000), "MX_NPU_ERR_RESERVED_BITS", "bit 31 is reserved"),  # OFM_SCALE
        ((0x0600_0130,), "MX_NPU_ERR_BAD_VALUE", "DMA stride mode 3"),  # DMA0_SRC_REGION
    ],
)
def test_u85_commands_it_does_not_run_are_refused_by_name(sim, inserted, status, says):
    blob, fast = harness.compiled(op_graph("conv"), "ethos-u85-256")
    words = _insert_before_op(sim.stream(blob.cmd_data), (0x002,), *inserted)
    _refused(sim, blob, fast, words, status, says)


def test_u85_stream_structure_errors(sim):
    """The U85 decoder is as strict as the U55's: a missing STOP, words after it, a cut cmd1, payload sizes other than
    0/1, command bits 10-13: each an error naming the word."""
    blob, fast = harness.compiled(op_graph("conv"), "ethos-u85-256")
    words = sim.stream(blob.cmd_data)
    assert words[-1] == 0xFFFF0000  # STOP
    cmd1 = next(i for i, w in enumerate(words) if w & 0x4000)
    for edited, status in (
        (words[:-1], "MX_NPU_ERR_NO_STOP"),
        (words + [0xFFFF0000], "MX_NPU_ERR_AFTER_STOP"),
        ([*words[:-1], 0x4020], "MX_NPU_ERR_TRUNCATED"),  # WEIGHT_BASE, its payload word missing
        (words[:cmd1] + [words[cmd1] | 0x8000] + words[cmd1 + 1 :], "MX_NPU_ERR_PAYLOAD_SIZE"),
        (words[:cmd1] + [words[cmd1] | 0x0400] + words[cmd1 + 1 :], "MX_NPU_ERR_RESERVED_BITS"),
    ):
        _refused(sim, blob, fast, edited, status)


@pytest.mark.parametrize(
    "edit, says", [(lambda p: p | 1 << 11, "index mode"), (lambda p: p | 1 << 9, "stride mode 2D")]
)
def test_u85_dma_modes_other_than_1d_copies_are_refused(sim, edit, says):
    case = cases.table(np.random.default_rng(0))
    blob, fast, words = _words_with(sim, case.graph, "ethos-u85-256", 0x130, edit)  # DMA0_SRC_REGION
    _refused(sim, blob, fast, words, "MX_NPU_ERR_NOT_IMPLEMENTED", "NPU_OP_DMA_START", says)


def test_corrupt_u85_weights_are_refused(sim):
    """A FWD stream one block short, and an MLW stream zeroed, are BAD_WEIGHTS, not other weights."""
    for graph, fast_format in ((op_graph("conv"), True), (op_graph("depthwise"), False)):
        blob, fast = harness.compiled(graph, "ethos-u85-256")
        words = sim.stream(blob.cmd_data)
        at = next(i for i in range(len(words) - 1) if words[i] & 0x43FF == 0x4021)  # WEIGHT_LENGTH
        regions = [bytearray(blob.weight_data), bytearray(blob.scratch_size), bytearray(fast)]
        if fast_format:
            words[at + 1] -= 32
        else:
            base = words[next(i for i in range(len(words) - 1) if words[i] & 0x43FF == 0x4020) + 1]
            regions[0][base : base + words[at + 1]] = bytes(words[at + 1])
        with pytest.raises(harness.ExecError) as info:
            sim.execute(words, regions, config=sim.payload(blob.cmd_data)[1])
        assert info.value.status == "MX_NPU_ERR_BAD_WEIGHTS" and "weight stream" in info.value.message, info.value


@pytest.mark.parametrize("graph", ["conv", "depthwise", "add", "max", "avg"])
def test_regions_too_small_are_out_of_bounds_errors(sim, graph):
    blob, fast = harness.compiled(op_graph(graph), "ethos-u55-128")
    words = sim.stream(blob.cmd_data)
    shrunk = [(1, blob.scratch_size - 1), (1, 0)]
    if graph in ("conv", "depthwise"):  # the others read nothing from region 0
        shrunk.append((0, len(blob.weight_data) - 17))
    for region, size in shrunk:
        regions = [bytearray(blob.weight_data), bytearray(blob.scratch_size), bytearray(fast)]
        regions[region] = regions[region][:size]
        with pytest.raises(harness.ExecError) as info:
            sim.execute(words, regions)
        assert info.value.status == "MX_NPU_ERR_OUT_OF_BOUNDS", info.value
        assert "outside region" in info.value.message or "do not fit" in info.value.message


def test_a_missing_region_is_an_error(sim):
    blob, fast = harness.compiled(op_graph("conv"), "ethos-u55-128")
    words = sim.stream(blob.cmd_data)
    with pytest.raises(harness.ExecError) as info:
        sim.execute(words, [bytearray(blob.weight_data), None, None])
    assert info.value.status == "MX_NPU_ERR_OUT_OF_BOUNDS" and "region 1" in info.value.message


def test_corrupt_weights_are_refused(sim):
    blob, fast = harness.compiled(op_graph("conv"), "ethos-u55-128")
    words = sim.stream(blob.cmd_data)
    weights = bytearray(blob.weight_data)
    weights[48:] = bytes(len(weights) - 48)  # the MLW stream (after 48 bytes of bias/scale records) zeroed
    with pytest.raises(harness.ExecError) as info:
        sim.execute(words, [weights, bytearray(blob.scratch_size), bytearray(fast)])
    assert info.value.status == "MX_NPU_ERR_BAD_WEIGHTS" and "weight stream" in info.value.message


def test_decoder_errors_pass_through(sim):
    with pytest.raises(harness.ExecError) as info:
        sim.execute([0x0002], [bytearray(16)])  # NPU_OP_CONV with nothing set, no STOP
    assert info.value.status == "MX_NPU_ERR_UNSET_REGISTER"
    sim.execute([0xFFFF0000], [None])  # STOP alone
    with pytest.raises(harness.ExecError) as info:
        sim.execute([], [None])
    assert info.value.status == "MX_NPU_ERR_NO_STOP"


# ---- never a fault: mutated streams, weights and region sizes under ASan/UBSan ---------------------------------------
FUZZ_CHILD = r"""
import ctypes, random, struct, sys
lib = ctypes.CDLL(sys.argv[1])
class Region(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]
class Error(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int32), ("opcode", ctypes.c_uint32), ("word_index", ctypes.c_size_t),
                ("word", ctypes.c_uint32), ("message", ctypes.c_char * 200)]
lib.mx_npu_execute_config.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(Region), ctypes.c_uint32,
                                      ctypes.POINTER(Error)]
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
data = open(sys.argv[2], "rb").read()
seen, at = {}, 0
while at < len(data):
    nw, n0, n1, n2, config = struct.unpack_from("<5I", data, at); at += 20
    words = data[at:at + 4 * nw]; at += 4 * nw
    r0 = data[at:at + n0]; at += n0
    sizes = (n0, n1, n2)
    w = libc.malloc(max(len(words), 1)); ctypes.memmove(w, words, len(words))
    table = (Region * 8)()
    bufs = []
    for i, size in enumerate(sizes):
        b = libc.malloc(max(size, 1))  # exactly `size` bytes: ASan's redzone right after
        ctypes.memset(b, 0, max(size, 1))
        if i == 0:
            ctypes.memmove(b, r0, size)
        bufs.append(b)
        table[i] = Region(b, size)
    err = Error()
    rc = lib.mx_npu_execute_config(w, nw, table, config, ctypes.byref(err))
    assert rc == 0 or (rc == -err.status and err.message), (rc, err.status, err.message)
    seen[rc] = seen.get(rc, 0) + 1
    for b in bufs: libc.free(b)
    libc.free(w)
print(sorted(seen.items()))
"""


def _fuzz_corpus(streams, n: int, seed: int) -> bytes:
    """Vela blobs with command words flipped/replaced/cut, weight bytes flipped, region sizes shrunk; each record carries
    its stream's OPTIMIZER_CONFIG word (the U85's picks the U85 decoder and executor)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words, weights, scratch, fast, config = rng.choice(streams)
        words, weights = list(words), bytearray(weights)
        for _ in range(rng.randrange(0, 4)):
            kind, at = rng.randrange(5), rng.randrange(len(words))
            if kind == 0:
                words[at] ^= 1 << rng.randrange(32)
            elif kind == 1:
                words[at] = (words[at] & 0xFFFF) | (rng.getrandbits(16) << 16)
            elif kind == 2:
                words[at] = rng.getrandbits(32)
            elif kind == 3 and weights:
                weights[rng.randrange(len(weights))] ^= 1 << rng.randrange(8)
            else:
                words.insert(at, words[rng.randrange(len(words))])
        if rng.random() < 0.3:
            scratch = rng.randrange(scratch + 1)
        if rng.random() < 0.1:
            weights = weights[: rng.randrange(len(weights) + 1)]
        raw = struct.pack(f"<{len(words)}I", *words)
        out.append(struct.pack("<5I", len(words), len(weights), scratch, fast, config) + raw + bytes(weights))
    return b"".join(out)


@pytest.mark.slow
def test_mutated_streams_never_fault_under_asan_and_ubsan(tmp_path, sim):
    lib, asan = harness.sanitized_build()
    streams = []
    rng = np.random.default_rng(11)
    graphs = [op_graph(g) for g in ("conv", "depthwise", "add", "max", "avg")]
    graphs += [cases.draw(cases.BUILDERS[b], rng).graph for b in ("table", "transpose", "pad", "mul", "conv")]
    for graph in graphs:
        for accelerator in ("ethos-u55-128", "ethos-u65-256", "ethos-u85-256", "ethos-u85-512"):
            blob, fast = harness.compiled(graph, accelerator)
            streams.append((*sim.payload(blob.cmd_data), blob.weight_data, blob.scratch_size, fast))
    for model in ("kws_dscnn", "resnet8"):  # NHCWB16 intermediates, tables, the int32 softmax, DMA'd weights
        for accelerator in ("ethos-u55-128", "ethos-u85-256"):  # U85: chained operations, FWD weights
            blob, _ = exported_delegate(model, accelerator)
            streams.append((*sim.payload(blob.cmd_data), blob.weight_data, blob.scratch_size, 0))
    streams = [(words, weights, scratch, fast, config) for words, config, weights, scratch, fast in streams]
    n = 3000
    (tmp_path / "corpus.bin").write_bytes(_fuzz_corpus(streams, n, seed=5))
    (tmp_path / "child.py").write_text(FUZZ_CHILD)
    env = {"LD_PRELOAD": asan, "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0", "PYTHONMALLOC": "malloc"}
    run = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(lib), str(tmp_path / "corpus.bin")],
                         capture_output=True, text=True, timeout=900, env=env)  # fmt: skip
    clean = run.returncode == 0 and "runtime error" not in run.stderr and "Sanitizer" not in run.stderr
    assert clean, run.stderr[-3000:]
    outcomes = dict(eval(run.stdout))  # noqa: S307  [(return code, count)] printed by the child
    assert sum(outcomes.values()) == n and outcomes.get(0, 0) > 0 and len(outcomes) >= 4, outcomes
