"""The cortex_m runtime kernels (runtime_c/kernels/cortex_m/): one-op .pte programs through the host C runtime
equal the numpy references of mcu_export/int8/reference/ (and torch for quantize/dequantize) bit for bit,
in both spellings of the 2-D ops. Bad arguments: test_cortex_m_kernels_errors.py."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

import cortex_m_cases as C
from cortex_m_programs import BAD_SHAPE, BAD_VALUE, OpProgram, pte_runner
from mcu_export.errors import RuntimeFailure
from mcu_export.int8.reference.elementwise import add_params, arm_elementwise_add_s8, arm_elementwise_mul_s8, mul_params
from mcu_export.int8.reference.lut import arm_quantized_activation_s8, build_lut
from mcu_export.int8.reference.pad import arm_pad_s8
from mcu_export.int8.reference.softmax import arm_softmax_s8, softmax_params
from mcu_export.int8.reference.transpose import arm_transpose_s8

pytestmark = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs cmake, ninja and a C compiler"
)

I8 = np.int8


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return pte_runner(tmp_path_factory.mktemp("cortex_m"))


def check(run, case: C.Case):
    got = run(case.pte, case.inputs)
    assert got.dtype == case.expected.dtype and got.shape == case.expected.shape
    np.testing.assert_array_equal(got, case.expected)


# ---- quantize / dequantize: torch's arithmetic ---------------------------------------------------------


@pytest.mark.parametrize("scale,zp", [(0.05, 3), (0.1, -128), (1 / 3, 0), (0.0078125, 10)])
def test_quantize_per_tensor_matches_torch(run, scale, zp):
    rng = np.random.default_rng(1)
    ties = (np.arange(-40, 40, dtype=np.float32) + np.float32(0.5)) * np.float32(scale)  # halfway cases
    x = np.concatenate([rng.normal(0, 4, 200).astype(np.float32), ties, [0.0, -0.0, 1e9, -1e9]]).astype(np.float32)
    x = x.reshape(4, -1)
    p = OpProgram("cortex_m::quantize_per_tensor.out")
    xi, out = p.input(x), p.planned(x.shape, I8)
    pte = p.build([xi, p.double(scale), p.int_(zp), p.int_(-128), p.int_(127), p.int_(1)], out)
    want = torch.ops.quantized_decomposed.quantize_per_tensor(torch.from_numpy(x), scale, zp, -128, 127, torch.int8)
    np.testing.assert_array_equal(run(pte, [x]), want.numpy())


@pytest.mark.parametrize("scale,zp", [(0.05, 3), (0.3, -128), (1 / 3, 17)])
def test_dequantize_per_tensor_matches_torch(run, scale, zp):
    q = np.arange(-128, 128, dtype=I8).reshape(2, 8, 16)
    p = OpProgram("cortex_m::dequantize_per_tensor.out")
    qi, out = p.input(q), p.planned(q.shape, np.float32)
    pte = p.build([qi, p.double(scale), p.int_(zp), p.int_(-128), p.int_(127), p.int_(1)], out)
    want = torch.ops.quantized_decomposed.dequantize_per_tensor(torch.from_numpy(q), scale, zp, -128, 127, torch.int8)
    got = run(pte, [q])
    assert got.tobytes() == want.numpy().tobytes()


# ---- elementwise ----------------------------------------------------------------------------------


def _add_program(a, b, prm, act, orders=(None, None, None), out_shape=None):
    p = OpProgram("cortex_m::quantized_add.out")
    ai, bi = p.input(a, orders[0]), p.input(b, orders[1])
    out = p.planned(out_shape or a.shape, I8, orders[2])
    args = [
        ai,
        p.int_(-prm["input_1_offset"]),
        p.int_(prm["input_1_mult"]),
        p.int_(prm["input_1_shift"]),
        bi,
        p.int_(-prm["input_2_offset"]),
        p.int_(prm["input_2_mult"]),
        p.int_(prm["input_2_shift"]),
        p.int_(prm["out_offset"]),
        p.int_(prm["out_mult"]),
        p.int_(prm["out_shift"]),
        p.int_(act[0]),
        p.int_(act[1]),
    ]
    return p.build(args, out)


def _add_ref(a, b, prm, act):
    return arm_elementwise_add_s8(a, b, **prm, out_activation_min=act[0], out_activation_max=act[1])


@pytest.mark.parametrize("seed", range(3))
def test_quantized_add(run, seed):
    rng = np.random.default_rng(seed)
    a, b = C.i8(rng, 3, 5, 7), C.i8(rng, 3, 5, 7)
    prm = add_params(
        0.02 + rng.random() * 0.1,
        int(rng.integers(-128, 128)),
        0.02 + rng.random() * 0.1,
        int(rng.integers(-128, 128)),
        0.05 + rng.random() * 0.2,
        int(rng.integers(-128, 128)),
    )
    act = (-128, 127) if seed else (-50, 90)
    np.testing.assert_array_equal(run(_add_program(a, b, prm, act), [a, b]), _add_ref(a, b, prm, act))


def test_quantized_add_broadcasts_a_channel_row(run):
    """ExecuTorch's one broadcast: [1, C, 1, 1] against a channels-last [N, C, H, W], either operand."""
    rng = np.random.default_rng(7)
    full_nhwc, row = C.i8(rng, 2, 3, 4, 6), C.i8(rng, 1, 6, 1, 1)
    full, order = C.channels_last(full_nhwc)
    prm = add_params(0.05, 3, 0.08, -7, 0.1, 1)
    want_nhwc = _add_ref(full_nhwc, np.broadcast_to(row.reshape(1, 1, 1, 6), full_nhwc.shape), prm, (-128, 127))
    pte = _add_program(full, row, prm, (-128, 127), (order, None, order))
    np.testing.assert_array_equal(run(pte, [full, row]), want_nhwc.transpose(0, 3, 1, 2))
    swapped = {**prm}
    for k in ("offset", "mult", "shift"):
        swapped[f"input_1_{k}"], swapped[f"input_2_{k}"] = prm[f"input_2_{k}"], prm[f"input_1_{k}"]
    want = _add_ref(np.broadcast_to(row.reshape(1, 1, 1, 6), full_nhwc.shape), full_nhwc, swapped, (-128, 127))
    pte = _add_program(row, full, swapped, (-128, 127), (None, order, order), out_shape=full.shape)
    np.testing.assert_array_equal(run(pte, [row, full]), want.transpose(0, 3, 1, 2))


def test_quantized_add_refuses_operands_that_do_not_broadcast(run):
    a, b = np.zeros((2, 6), I8), np.zeros((2, 4), I8)
    with pytest.raises(RuntimeFailure, match=BAD_SHAPE):
        run(_add_program(a, b, add_params(0.1, 0, 0.1, 0, 0.1, 0), (-128, 127)), [a, b])


@pytest.mark.parametrize("seed", range(3))
def test_quantized_mul(run, seed):
    rng = np.random.default_rng(seed)
    a, b = C.i8(rng, 4, 33), C.i8(rng, 4, 33)
    prm = mul_params(
        0.05 + rng.random() * 0.1,
        int(rng.integers(-128, 128)),
        0.05 + rng.random() * 0.1,
        int(rng.integers(-128, 128)),
        0.2 + rng.random(),
        int(rng.integers(-128, 128)),
    )
    p = OpProgram("cortex_m::quantized_mul.out")
    ai, bi, out = p.input(a), p.input(b), p.planned(a.shape, I8)
    pte = p.build(
        [
            ai,
            p.int_(-prm["input_1_offset"]),
            bi,
            p.int_(-prm["input_2_offset"]),
            p.int_(prm["out_offset"]),
            p.int_(prm["out_mult"]),
            p.int_(prm["out_shift"]),
        ],
        out,
    )
    want = arm_elementwise_mul_s8(
        a,
        b,
        prm["input_1_offset"],
        prm["input_2_offset"],
        prm["out_offset"],
        prm["out_mult"],
        prm["out_shift"],
        -128,
        127,
    )
    np.testing.assert_array_equal(run(pte, [a, b]), want)


# ---- linear ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(kernel_sum=False),
        dict(bias=False),
        dict(bias=False, kernel_sum=False),
        dict(lead=(2, 3)),
        dict(per_channel=True),
        dict(per_channel=True, kernel_sum=False),
        dict(c_in=784, c_out=32, lead=(1,)),
    ],
    ids=["bias+ksum", "bias", "ksum", "neither", "3d", "per-channel", "per-channel-bias", "mnist-784x32"],
)
def test_quantized_linear(run, kw):
    check(run, C.linear_case(np.random.default_rng(len(str(kw))), **kw))


def test_quantized_linear_kernel_sum_only_still_carries_the_bias(run):
    """An ExecuTorch MVE-style program (bias None, kernel_sum with the bias folded in) on a scalar host."""
    check(run, C.linear_case(np.random.default_rng(3), bias=True, kernel_sum=True, pass_bias=False))
    check(run, C.linear_case(np.random.default_rng(4), per_channel=True, pass_bias=False))


def test_quantized_linear_reads_a_pooled_nchw_input_as_rows(run):
    """[N, C, 1, 1] into [N, C_out]: the int8 lowering drops the flattening view_copy before the layer."""
    check(run, C.linear_case(np.random.default_rng(5), lead=(2,), c_in=16, c_out=5, pooled=(1, 1)))
    for pooled in ((2, 1), (1, 2)):  # H or W > 1: not [N, C] rows (the channels dim no longer matches)
        case = C.linear_case(np.random.default_rng(6), lead=(2,), c_in=16, c_out=5, pooled=pooled)
        with pytest.raises(RuntimeFailure, match=BAD_SHAPE):
            run(case.pte, case.inputs)


# ---- softmax, activation, transpose, pad ---------------------------------------------------------


@pytest.mark.parametrize("layout", ["rows", "channels_last"])
def test_softmax(run, layout):
    rng = np.random.default_rng(5)
    mult, shift, diff_min = softmax_params(0.08)
    p = OpProgram("cortex_m::softmax.out")
    if layout == "rows":
        x = C.i8(rng, 3, 10)
        xi, out, dim, want = p.input(x), p.planned(x.shape, I8), -1, arm_softmax_s8(x, mult, shift, diff_min)
    else:  # softmax over C of a channels-last tensor: C is the innermost memory dim
        nhwc = C.i8(rng, 1, 3, 4, 9)
        x, order = C.channels_last(nhwc)
        xi, out, dim = p.input(x, order), p.planned(x.shape, I8, order), 1
        want = arm_softmax_s8(nhwc, mult, shift, diff_min).transpose(0, 3, 1, 2)
    pte = p.build([xi, p.int_(dim), p.int_(5), p.int_(-128), p.int_(mult), p.int_(shift), p.int_(diff_min)], out)
    np.testing.assert_array_equal(run(pte, [x]), want)


def test_softmax_refuses_a_dim_that_is_not_innermost(run):
    x = np.zeros((3, 4), I8)
    p = OpProgram("cortex_m::softmax.out")
    xi, out = p.input(x), p.planned(x.shape, I8)
    pte = p.build([xi, p.int_(0), p.int_(0), p.int_(-128), p.int_(1 << 30), p.int_(1), p.int_(-100)], out)
    with pytest.raises(RuntimeFailure, match=BAD_VALUE):
        run(pte, [x])


def test_quantized_activation(run):
    x = np.arange(-128, 128, dtype=I8).reshape(16, 16)
    lut = build_lut("sigmoid", 0.06, -3, 1 / 256, -128)
    p = OpProgram("cortex_m::quantized_activation.out")
    xi, out = p.input(x), p.planned(x.shape, I8)
    np.testing.assert_array_equal(run(p.build([xi, p.const(lut)], out), [x]), arm_quantized_activation_s8(x, lut))


@pytest.mark.parametrize(
    "shape,perm",
    [
        ((5,), [0]),
        ((3, 7), [1, 0]),
        ((2, 3, 5), [2, 0, 1]),
        ((2, 3, 4, 5), [0, 3, 1, 2]),
        ((2, 3, 4, 5), [-1, 2, 1, 0]),
    ],
)
def test_transpose(run, shape, perm):
    x = C.i8(np.random.default_rng(2), *shape)
    want = arm_transpose_s8(x, [d % len(shape) for d in perm])
    p = OpProgram("cortex_m::transpose.out")
    xi, out = p.input(x), p.planned(want.shape, I8)
    np.testing.assert_array_equal(run(p.build([xi, p.ints(perm)], out), [x]), want)


def test_pad_channels_last_and_rank_2(run):
    rng = np.random.default_rng(4)
    nhwc = C.i8(rng, 1, 3, 4, 2)
    x, order = C.channels_last(nhwc)
    pre, post = [0, 1, 2, 0], [0, 2, 0, 1]  # memory order: N, H, W, C
    want = arm_pad_s8(nhwc, -5, pre, post)
    p = OpProgram("cortex_m::pad.out")
    xi, out = p.input(x, order), p.planned(want.transpose(0, 3, 1, 2).shape, I8, order)
    got = run(p.build([xi, p.ints(pre), p.ints(post), p.int_(-5)], out), [x])
    np.testing.assert_array_equal(got, want.transpose(0, 3, 1, 2))
    y = C.i8(rng, 3, 5)
    want = np.pad(y, [(1, 0), (2, 3)], constant_values=7)
    p = OpProgram("cortex_m::pad.out")
    yi, out = p.input(y), p.planned(want.shape, I8)
    np.testing.assert_array_equal(
        run(p.build([yi, p.ints([0, 0, 1, 2]), p.ints([0, 0, 0, 3]), p.int_(7)], out), [y]), want
    )


# ---- convolutions and pooling, both spellings ----------------------------------------------------

CONV_SHAPES = {
    "3x3": dict(),
    "1x1": dict(k=(1, 1), pad=(0, 0), c_in=8),
    "1x1-strided": dict(k=(1, 1), pad=(0, 0), stride=(2, 2)),
    "strided-dilated": dict(h=9, w=10, k=(3, 2), stride=(2, 1), pad=(2, 1), dil=(2, 2)),
    "1xn": dict(h=1, k=(1, 3), pad=(0, 1), c_in=4),
    "grouped": dict(c_in=6, c_out=4, groups=2),
    "batch2-nobias": dict(n=2, bias=False),
}


@pytest.mark.parametrize("nhwc", [False, True], ids=["channels_last", "nhwc"])
@pytest.mark.parametrize("shape", list(CONV_SHAPES))
def test_quantized_conv2d(run, shape, nhwc):
    check(run, C.conv_case(np.random.default_rng(hash(shape) % 1000), nhwc, **CONV_SHAPES[shape]))


DW_SHAPES = {
    "3x3": dict(),
    "mult2-5x3": dict(mult_ch=2, k=(5, 3), pad=(2, 1)),
    "strided-dilated": dict(stride=(2, 2), dil=(1, 2), pad=(0, 2)),
    "one-channel": dict(c_in=1, mult_ch=3),
}


@pytest.mark.parametrize("nhwc", [False, True], ids=["channels_last", "nhwc"])
@pytest.mark.parametrize("shape", list(DW_SHAPES))
def test_quantized_depthwise_conv2d(run, shape, nhwc):
    check(run, C.depthwise_case(np.random.default_rng(len(shape)), nhwc, **DW_SHAPES[shape]))


@pytest.mark.parametrize("nhwc", [False, True], ids=["channels_last", "nhwc"])
@pytest.mark.parametrize("kind", ["avg", "max"])
@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(ceil_mode=True),
        dict(k=(2, 2), pad=(0, 0), stride=(2, 2), n=2),
        dict(k=(8, 8), stride=(1, 1), pad=(0, 0), h=8),
    ],
    ids=["3s2p1", "ceil", "2x2", "global"],
)
def test_pooling(run, kind, nhwc, kw):
    check(run, C.pool_case(np.random.default_rng(11), kind, nhwc, **kw))


def test_max_pool_activation_bounds(run):
    check(run, C.pool_case(np.random.default_rng(12), "max", True, act=(-20, 60)))
