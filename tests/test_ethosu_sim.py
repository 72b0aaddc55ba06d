"""Our Ethos-U55/U65/U85 command-stream executor (fvp/ethosu_sim, mx_npu_execute) against TOSA's reference model.

Every graph here is compiled by Vela 5.2 (mcu_export.ethosu.vela.compile_tosa); its command stream runs in the
executor on regions 0 (a copy of weight_data), 1 (the scratch arena, inputs written at their offsets) and 2 (the
fast scratch of a U65's Dedicated_Sram); the outputs read back from their offsets must equal what
tosa_reference_model computes on the same TOSA graph, bit for bit:
- single operators (convolution, depthwise, fully connected, max/average pool with and without padding, add with
  its 32-bit operand scaling, broadcast and subtraction, multiply, table, pad, transpose, concat, slice, reshape;
  the integer softmax's int32 operators), random shapes and parameters (hypothesis), each on random, saturating
  (all -128, all 127) and small inputs; "tie" cases with power-of-two scales put many results on a rounding half;
- in test_ethosu_sim_models.py: the example models' NPU graphs as mcu_export.export delegates them (mnist_mlp,
  kws_dscnn with its integer softmax, resnet8, autoencoder), on random and saturating inputs, each run well under a
  second; and refusals: what the executor does not implement is an error naming the operation or mode, an access
  outside a region is an error (never a fault: mutated streams and weights under ASan/UBSan, slow).

Accelerators: ethos-u55-128 and ethos-u65-256 everywhere; ethos-u55-32, -64 and -256 for the operators whose
command streams depend on the MAC configuration (weight order, block sizes) and the models; ethos-u65-512 (two
cores, weights split by alternate OFM channel) for the models and for convolutions whose OFM has at least 2 channels
(with one channel Vela writes no WEIGHT1_BASE, which the decoder refuses as an unset register). The harness runs
every stream through mx_npu_execute_config with the payload's OPTIMIZER_CONFIG word (the 32-MAC Ethos-U55 orders
its weights in OFM micro-blocks of 4); mx_npu_execute, which the runtime calls, is the same for the others.
Ethos-U85 (Vela 5.2's regor backend; the config word's product field says so): ethos-u85-256 everywhere; -128, -512
and -2048 for the convolutions, whose weight order depends on the MAC count (micro-block depth, IFM block depth,
interleaved cores, depthwise padding).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ethosu_sim_cases as cases  # tests/support
import ethosu_sim_harness as harness  # tests/support
from ethosu_graphs import op_graph  # tests/support

pytest.importorskip("ethosu.vela")
pytest.importorskip("tosa_reference_model")

ROOT = Path(__file__).resolve().parents[1]
MAIN_NAMES = ("ethos-u55-128", "ethos-u65-256")
MAC_DEPENDENT = ("ethos-u55-32", "ethos-u55-64", "ethos-u55-256")
MODELS = ("mnist_mlp", "kws_dscnn", "resnet8", "autoencoder")
MODEL_ACCELERATORS = MAIN_NAMES + MAC_DEPENDENT + ("ethos-u65-512",)
U85 = ("ethos-u85-256",)
U85_MAC_DEPENDENT = ("ethos-u85-128", "ethos-u85-512", "ethos-u85-2048")


def slow(*accelerators: str) -> tuple:
    """The MAC-count variants: in the full suite only, so that `make test-fast` stays quick."""
    return tuple(pytest.param(a, marks=pytest.mark.slow) for a in accelerators)


# The U65 shares the U55's command stream and arithmetic: the fast tier runs the U55 and the U85, the full
# suite the U65 too.
MAIN = ("ethos-u55-128",) + slow("ethos-u65-256")

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def sim() -> harness.Executor:
    return harness.Executor(harness.build())


reference = harness.reference


def assert_bit_exact(sim, graph: bytes, accelerator: str, input_sets, what: str) -> None:
    blob, fast = harness.compiled(graph, accelerator)
    for kind, inputs in input_sets:
        got = sim.run_blob(blob, inputs, fast).outputs
        want = reference(graph, inputs)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g = g.reshape(w.shape)
            diff = np.argwhere(g != w)
            assert diff.size == 0, (
                f"{what} on {accelerator}, {kind} inputs: {len(diff)} of {w.size} differ, first at "
                f"{tuple(diff[0])}: executor {g[tuple(diff[0])]}, reference {w[tuple(diff[0])]}"
            )


def run_case(sim, builder, accelerator: str, seed: int, tie: bool) -> None:
    rng = np.random.default_rng(seed)
    case = cases.draw(builder, rng, tie)
    assert_bit_exact(sim, case.graph, accelerator, cases.input_sets(case, rng), case.what)


# ---- single operators -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("accelerator", MAIN + U85 + slow(*MAC_DEPENDENT, *U85_MAC_DEPENDENT))
@pytest.mark.parametrize("op", ["conv", "depthwise", "fully_connected"])
@settings(max_examples=40, **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), tie=st.booleans())
@pytest.mark.slow
def test_convolutions_bit_exact(sim, op, accelerator, seed, tie):
    run_case(sim, cases.BUILDERS[op], accelerator, seed, tie)


@pytest.mark.parametrize("accelerator", MAIN + U85)
@settings(max_examples=20, **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), tie=st.booleans())
def test_convolutions_with_a_transposed_output_bit_exact(sim, accelerator, seed, tie):
    """Vela's regor folds the transpose into the convolution's OFM on the U85 (OFM_PRECISION's transpose)."""
    run_case(sim, cases.BUILDERS["conv_transposed"], accelerator, seed, tie)


@pytest.mark.parametrize("op", ["conv", "depthwise"])
@settings(max_examples=20, **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), tie=st.booleans())
def test_convolutions_on_two_cores_bit_exact(sim, op, seed, tie):
    rng = np.random.default_rng(seed)
    case = cases.draw(cases.BUILDERS[op], rng, tie)
    if case.out_channels < 2:
        return  # one OFM channel: Vela leaves WEIGHT1_BASE unwritten (see the module docstring)
    assert_bit_exact(sim, case.graph, "ethos-u65-512", cases.input_sets(case, rng), case.what)


@pytest.mark.parametrize("accelerator", MAIN + U85 + slow(*MAC_DEPENDENT))
@pytest.mark.parametrize("op", ["max_pool", "avg_pool"])
@settings(max_examples=30, **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1))
def test_pools_bit_exact(sim, op, accelerator, seed):
    run_case(sim, cases.BUILDERS[op], accelerator, seed, False)


@pytest.mark.parametrize("accelerator", U85 + ("ethos-u85-2048",))
@settings(max_examples=20, **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1))
def test_large_average_pools_bit_exact(sim, accelerator, seed):
    """Kernels beyond 8x8: regor's SUM pool; padded, a chained int32 multiply by each position's reciprocal (rounding
    TRUNCATE_TO_LOWER) and a rounding shift (the Ethos-U55/U65 refuse these graphs in Vela)."""
    run_case(sim, cases.BUILDERS["large_avg_pool"], accelerator, seed, False)


@pytest.mark.parametrize("accelerator", MAIN + U85)
@pytest.mark.parametrize("op", ["add", "rescaled_add", "mul", "table"])
@settings(max_examples=40, **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), tie=st.booleans())
@pytest.mark.slow
def test_elementwise_bit_exact(sim, op, accelerator, seed, tie):
    run_case(sim, cases.BUILDERS[op], accelerator, seed, tie)


@pytest.mark.parametrize("accelerator", MAIN + U85)
@pytest.mark.parametrize("op", ["pad", "transpose", "concat", "slice", "reshape"])
@settings(max_examples=20, **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1))
def test_data_movement_bit_exact(sim, op, accelerator, seed):
    run_case(sim, cases.BUILDERS[op], accelerator, seed, False)


@pytest.mark.parametrize("accelerator", MAIN + U85)
@settings(max_examples=12, **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1))
def test_softmax_as_the_exporter_builds_it_bit_exact(sim, accelerator, seed):
    run_case(sim, cases.BUILDERS["softmax"], accelerator, seed, False)


@pytest.mark.parametrize("accelerator", MAIN + U85)
@pytest.mark.parametrize("op", cases.INT32_OPS)
@settings(max_examples=12, **SETTINGS)
@given(seed=st.integers(0, 2**32 - 1))
def test_int32_operators_bit_exact(sim, op, accelerator, seed):
    rng = np.random.default_rng(seed)
    case = cases.int32_op(rng, op)
    assert_bit_exact(sim, case.graph, accelerator, cases.input_sets(case, rng), case.what)


@pytest.mark.parametrize("accelerator", MAIN + ("ethos-u55-64", "ethos-u55-256", "ethos-u65-512"))
def test_execute_without_the_config_is_the_same_from_64_macs(sim, accelerator):
    rng = np.random.default_rng(8)
    case = cases.draw(cases.conv, rng)
    blob, fast = harness.compiled(case.graph, accelerator)
    words, config = sim.payload(blob.cmd_data)
    assert config & 0xF >= 6  # log2 of the MACs per cycle
    for _, inputs in cases.input_sets(case, rng):
        with_config = sim.run_blob(blob, inputs, fast).outputs
        without = sim.run_blob(blob, inputs, fast, words=words, config=None).outputs
        assert all(np.array_equal(a, b) for a, b in zip(with_config, without))


def test_a_32_mac_stream_needs_its_config(sim):
    """ethos-u55-32 orders weights in OFM micro-blocks of 4: without the payload's config word the executor assumes
    8 and either refuses the stream (its length does not fit) or computes other weights; with it, bit-exact."""
    rng = np.random.default_rng(2)
    blob, fast = harness.compiled(op_graph("conv"), "ethos-u55-32")
    words, config = sim.payload(blob.cmd_data)
    assert config & 0xF == 5
    inputs = [rng.integers(-128, 128, size=r.shape[-4:], dtype=np.int8) for r in blob.inputs]
    with pytest.raises(harness.ExecError) as info:
        sim.run_blob(blob, inputs, fast, words=words, config=None)
    assert info.value.status == "MX_NPU_ERR_BAD_WEIGHTS"
    got = sim.run_blob(blob, inputs, fast).outputs[0]
    np.testing.assert_array_equal(got.reshape(-1), reference(op_graph("conv"), inputs)[0].reshape(-1))


def _u85_weight_formats(words) -> set:
    """The WEIGHT_FORMAT values (bit 0 fast decoder, bit 4 2:4 sparse) of a U85 stream's commands."""
    found, i = set(), 0
    while i < len(words):
        if not words[i] & 0x4000 and words[i] & 0x3FF == 0x12E:
            found.add(words[i] >> 16)
        i += 2 if words[i] & 0x4000 else 1
    return found


@pytest.mark.parametrize("accelerator", ("ethos-u85-256", "ethos-u85-512"))
def test_u85_weight_streams_of_every_format_bit_exact(sim, accelerator):
    """regor writes a convolution's weights as standard (MLW) streams, fast-decoder streams (FWD) or 2:4 sparse ones
    (when the weights happen to be): random convolutions and fully connected layers until every format has been seen,
    each bit-exact (two cores on ethos-u85-512: FWD interleaves them, MLW gives each its stream)."""
    seen = set()
    for seed in range(60):
        rng = np.random.default_rng(seed)
        builder = cases.BUILDERS["fully_connected" if seed % 3 == 0 else "conv"]
        case = cases.draw(builder, rng, seed % 2 == 1)
        blob, _ = harness.compiled(case.graph, accelerator)
        formats = _u85_weight_formats(sim.stream(blob.cmd_data)) - seen
        if formats:
            assert_bit_exact(sim, case.graph, accelerator, cases.input_sets(case, rng), case.what)
            seen |= formats
        if {0, 1} <= seen and any(f & 0x10 for f in seen):
            return
    raise AssertionError(f"weight formats seen: {sorted(seen)}")


def test_a_u85_stream_runs_only_with_its_config(sim):
    """OPTIMIZER_CONFIG's product field (bits 28-31: 2 for the Ethos-U85) picks the U85 decoder; without the config word
    the U55 decoder refuses the stream (commands it does not have), never computing something else."""
    rng = np.random.default_rng(5)
    case = cases.draw(cases.conv, rng)
    blob, fast = harness.compiled(case.graph, "ethos-u85-256")
    words, config = sim.payload(blob.cmd_data)
    assert config >> 28 == 2 and config & 0xF == 8
    inputs = cases.input_sets(case, rng)[0][1]
    with pytest.raises(harness.ExecError):
        sim.run_blob(blob, inputs, fast, words=words, config=None)
    got = sim.run_blob(blob, inputs, fast).outputs[0]
    np.testing.assert_array_equal(got.reshape(-1), reference(case.graph, inputs)[0].reshape(-1))
    with pytest.raises(harness.ExecError) as info:
        sim.run_blob(blob, inputs, fast, words=words, config=(config & 0x0FFFFFFF) | 3 << 28)
    assert info.value.status == "MX_NPU_ERR_NOT_IMPLEMENTED" and "product 3" in info.value.message
    for graph in ("conv", "depthwise", "add", "max", "avg"):  # every kind of U85 operation: refused by the U55 path
        blob, fast = harness.compiled(op_graph(graph), "ethos-u85-256")
        words = sim.stream(blob.cmd_data)
        zeros = [np.zeros(r.shape[-4:], np.int8) for r in blob.inputs]
        with pytest.raises(harness.ExecError):
            sim.run_blob(blob, zeros, fast, words=words, config=None)


def test_the_add_uses_the_32_bit_operand_scale(sim):
    """The fused add (mcu_export.ethosu.add_rescale's single RESCALEs) is one ELEMENTWISE ADD whose operand scale
    mode is OPA_32BIT or OPB_32BIT: the path that takes the unscaled operand x 2^19."""
    from mcu_export.ethosu.payload import parse

    blob, _ = harness.compiled(op_graph("add"), "ethos-u55-128")
    words = sim.stream(blob.cmd_data)
    commands = parse(blob.cmd_data).commands
    precision = [c >> 16 for c, _ in commands if c & 0x3FF == 0x105 and not c & 0x4000]
    assert any((p >> 8) & 3 in (1, 2) for p in precision), precision
    rng = np.random.default_rng(3)
    for _ in range(4):
        inputs = [rng.integers(-128, 128, size=r.shape[-4:], dtype=np.int8) for r in blob.inputs]
        got = sim.run_blob(blob, inputs, words=words).outputs[0]
        np.testing.assert_array_equal(got.reshape(-1), reference(op_graph("add"), inputs)[0].reshape(-1))


# ---- tiles and layouts: operations from Vela's Python API, data placed by Vela's own get_address -----------------------
def _api_fm(v, shape, layout, tiles, addresses, zp=0):
    f = v.NpuFeatureMap()
    f.data_type, f.region, f.shape, f.layout = v.NpuDataType.INT8, 1, v.NpuShape3D(*shape), layout
    f.quantization = v.NpuQuantization(scale_f32=0.25, zero_point=zp)
    f.tiles = v.NpuTileBox(height_0=tiles[0], height_1=tiles[1], width_0=tiles[2], addresses=list(addresses))
    return f


def _place(scratch: bytearray, fm, values: np.ndarray) -> None:
    from ethosu.vela.register_command_stream_util import get_address, get_strides

    strides = get_strides(fm)
    for (y, x, c), value in np.ndenumerate(values):
        scratch[get_address(fm, strides, y, x, c)] = int(value) & 0xFF


def _gather(scratch: bytearray, fm) -> np.ndarray:
    from ethosu.vela.register_command_stream_util import get_address, get_strides

    strides = get_strides(fm)
    out = np.zeros((fm.shape.height, fm.shape.width, fm.shape.depth), np.int8)
    for y, x, c in np.ndindex(*out.shape):
        out[y, x, c] = np.int8(np.uint8(scratch[get_address(fm, strides, y, x, c)]))
    return out


@pytest.mark.parametrize("ifm_layout", ["NHWC", "NHCWB16"])
@pytest.mark.parametrize("ofm_layout", ["NHWC", "NHCWB16"])
def test_tiled_feature_maps_from_velas_api(sim, ifm_layout, ofm_layout):
    """A 3x3 MAX pool (padding 1) and an elementwise MAX, IFM/IFM2/OFM split in four tiles at scattered
    addresses, NHWC and NHCWB16: the streams Vela's Python API generates for them, on data placed where Vela's
    get_address says, give numpy's max pool and maximum. (Vela's Python generator writes these without the
    global-scale bit: no OFM scaling.)"""
    from ethosu.vela import api as v

    shape = (9, 10, 20)
    lay = {"NHWC": v.NpuLayout.NHWC, "NHCWB16": v.NpuLayout.NHCWB16}
    ifm = _api_fm(v, shape, lay[ifm_layout], (4, 6, 5), (0x0000, 0x1000, 0x2000, 0x3000))
    ifm2 = _api_fm(v, shape, lay[ifm_layout], (5, 3, 7), (0x4000, 0x5000, 0x6000, 0x7000))
    ofm = _api_fm(v, shape, lay[ofm_layout], (3, 7, 4), (0x8000, 0x9000, 0xA000, 0xB000))
    pool = v.NpuPoolingOperation(v.NpuPoolingOp.MAX)
    pool.ifm, pool.ofm = ifm, ofm
    pool.kernel, pool.padding = v.NpuKernel(3, 3), v.NpuPadding(1, 1, 1, 1)
    maximum = v.NpuElementWiseOperation(v.NpuElementWiseOp.MAX)
    maximum.ifm, maximum.ifm2, maximum.ofm = ifm, ifm2, ofm
    rng = np.random.default_rng(4)
    a = rng.integers(-128, 128, size=shape, dtype=np.int8)
    b = rng.integers(-128, 128, size=shape, dtype=np.int8)
    padded = np.pad(a.astype(int), ((1, 1), (1, 1), (0, 0)), constant_values=-1000)
    pooled = np.max([padded[dy : dy + shape[0], dx : dx + shape[1]] for dy in range(3) for dx in range(3)], axis=0)
    for op, want in ((pool, pooled), (maximum, np.maximum(a, b))):
        op.block_config = v.npu_find_block_configs(op, v.NpuAccelerator.Ethos_U55_128)[-1]
        words = v.npu_generate_register_command_stream([op], v.NpuAccelerator.Ethos_U55_128)
        scratch = bytearray(0xC000)
        _place(scratch, ifm, a)
        _place(scratch, ifm2, b)
        sim.execute(words, [bytearray(16), scratch])
        np.testing.assert_array_equal(_gather(scratch, ofm), want.astype(np.int8))
