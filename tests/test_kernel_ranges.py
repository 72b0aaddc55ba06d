"""The int8 kernels' integer arithmetic is defined for every argument their checks accept (issue 12).

Each kernel family gets constants at the edge of what its arithmetic allows: a bias or kernel sum one past the
headroom of its int32 accumulator, a shift that makes the requantization's left shift wrap, a negative
multiplier, a softmax shift of 31 or below 0, a float scale beyond float32. The check refuses them at load with
MX_ERR_ARITH_RANGE naming the argument; the accepted boundary values run sanitizer-clean (ASan, UBSan,
float-cast-overflow, no recovery) and bit-exact with the Python reference, on input bytes that drive the
accumulator to its limits. All calls run in one child process (kernel_ranges_harness)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

import kernel_ranges_harness as H
from kernel_harness import error_codes
from mcu_export.int8.reference.softmax import softmax_params

# slow: a sanitized build of every cortex_m kernel per worker; the fast tier's loader checks are test_plan_validation
pytestmark = [pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler"), pytest.mark.slow]

ARITH = error_codes()["MX_ERR_ARITH_RANGE"]
BAD_VALUE = error_codes()["MX_ERR_BAD_ARG_VALUE"]
I32_MAX = (1 << 31) - 1
Q31_MAX = I32_MAX  # the largest multiplier quantize_multiplier gives
ALL_BYTES = torch.arange(-128, 128, dtype=torch.int8)
REVERSED = ALL_BYTES.flip(0)
ROWS = ALL_BYTES.reshape(4, 64)


def i8(shape, value):
    return torch.full(shape, value, dtype=torch.int8)


def i32(values):
    return torch.tensor(values, dtype=torch.int32)


def scratch(n=1 << 16):
    return torch.zeros(n, dtype=torch.uint8)


# --- convolutions: bias + K * max|x + input_offset| * 128 within int32, then the requantization -----------


def conv(bias, mult, shift, k=3, c_in=1, in_off=128, x=127, w=127, out_off=127):
    """A k x k convolution of one output pixel: K = k * k * c_in products of (x + in_off) and w."""
    return "cortex_m::quantized_conv2d_nhwc.out", dict(
        input=i8((1, k, k, c_in), x), weight=i8((1, k, k, c_in), w), bias=None if bias is None else i32([bias]),
        stride=[1, 1], padding=[0, 0], dilation=[1, 1], input_offset=in_off, output_offset=out_off,
        requantize_multipliers=i32([mult]), requantize_shifts=i32([shift]), activation_min=-128, activation_max=127,
        scratch=scratch(), out=i8((1, 1, 1, 1), 0),
    )  # fmt: skip


def depthwise(bias, mult, shift, k=3, in_off=128, x=127, w=-128, out_off=-128):
    return "cortex_m::quantized_depthwise_conv2d_nhwc.out", dict(
        input=i8((1, k, k, 2), x), weight=i8((1, k, k, 2), w), bias=i32([bias, -bias]), stride=[1, 1], padding=[0, 0],
        dilation=[1, 1], depth_multiplier=1, input_offset=in_off, output_offset=out_off,
        requantize_multipliers=i32([mult, mult]), requantize_shifts=i32([shift, shift]), activation_min=-128,
        activation_max=127, scratch=scratch(), out=i8((1, 1, 1, 2), 0),
    )  # fmt: skip


def transpose_conv(bias, mult, shift, c_in=4, x=127, w=127):
    return "cortex_m::quantized_transpose_conv2d.out", dict(
        input=i8((1, c_in, 1, 1), x), weight=i8((1, 1, 1, c_in), w), bias=i32([bias]), stride=[1, 1], padding=[0, 0],
        output_padding=[0, 0], dilation=[1, 1], input_offset=128, output_offset=127, requantize_multipliers=i32([mult]),
        requantize_shifts=i32([shift]), activation_min=-128, activation_max=127, scratch=scratch(),
        output_scratch=scratch(16), out=i8((1, 1, 1, 1), 0),
    )  # fmt: skip


TERMS_3X3 = 9 * 255 * 128  # K = 9 products of an offset input (<= 255) and a weight (<= 128)
BIAS_EDGE = I32_MAX - 255 - TERMS_3X3  # the largest |bias| accepted: 255 of headroom for the requantization


def linear(seed, mults, shifts, k=16, ksum=True, in_off=128, f_off=0, x=-128, w=-128, out_off=127):
    c_out = len(seed)
    return "cortex_m::quantized_linear.out", dict(
        input=i8((1, k), x), weights=i8((c_out, k), w), bias=None if ksum else i32(seed),
        kernel_sum=i32(seed) if ksum else None, input_offset=0 if ksum else in_off, filter_offset=f_off,
        output_offset=out_off, requantize_multipliers=mults, requantize_shifts=shifts, activation_max=127,
        activation_min=-128, out=i8((1, c_out), 0),
    )  # fmt: skip


def bmm(k, mult, shift, lhs_off=128, rhs_off=128, x=127, y=127):
    return "cortex_m::quantized_batch_matmul.out", dict(
        lhs=i8((1, 1, k), x), lhs_zero_point=lhs_off, rhs_transposed=i8((1, 2, k), y), rhs_zero_point=rhs_off,
        output_zero_point=127, output_multiplier=mult, output_shift=shift, scratch=scratch(16), out=i8((1, 1, 2), 0),
    )  # fmt: skip


# --- elementwise: (x + offset) << 20 requantized per input, summed, requantized (add); a product (mul) --


def add(m1, s1, m2, s2, m_out=Q31_MAX, s_out=0, zp1=-128, zp2=-128, a=ALL_BYTES, b=REVERSED):
    return "cortex_m::quantized_add.out", dict(
        self=a, self_zero_point=zp1, self_multiplier=m1, self_shift=s1, other=b, other_zero_point=zp2,
        other_multiplier=m2, other_shift=s2, output_zero_point=127, output_multiplier=m_out, output_shift=s_out,
        activation_min=-128, activation_max=127, out=i8((256,), 0),
    )  # fmt: skip


def mul(mult, shift, zp=-128):
    return "cortex_m::quantized_mul.out", dict(
        self=ALL_BYTES, self_zero_point=zp, other=ALL_BYTES.flip(0), other_zero_point=zp, output_zero_point=-128,
        output_multiplier=mult, output_shift=shift, out=i8((256,), 0),
    )  # fmt: skip


def prelu(pos_shift, neg_mult, neg_shift, pos_mult=Q31_MAX):
    x = ALL_BYTES.reshape(1, 4, 64)
    return "cortex_m::quantized_prelu.out", dict(
        input=x, channel_dim=1, input_zero_point=-128 + 1, output_zero_point=127, positive_multiplier=pos_mult,
        positive_shift=pos_shift, negative_multipliers=i32([neg_mult] * 4), negative_shifts=i32([neg_shift] * 4),
        out=i8((1, 4, 64), 0),
    )  # fmt: skip


# --- softmax and log-softmax: diff * 2^shift in int32, the row's sum of exps in int32 --------------------


def softmax(row, mult, shift, diff_min, x=None):
    data = i8((1, row), 0) if x is None else x
    return "cortex_m::softmax.out", dict(
        input=data, dim=-1, input_zero_point=0, output_zero_point=-128, input_multiplier=mult, input_shift=shift,
        diff_min=diff_min, out=i8(tuple(data.shape), 0),
    )  # fmt: skip


def log_softmax(mult, shift, diff_min, x=ROWS):
    return "cortex_m::log_softmax.out", dict(
        input=x, dim=-1, input_multiplier=mult, input_shift=shift, diff_min=diff_min, out=i8(tuple(x.shape), 0)
    )


SOFTMAX_1_16 = softmax_params(1.0 / 16)  # a typical int8 input scale
MAX_SHIFT = (1 << 30, 31, 0)  # what TFLite's params give for a huge input scale: only diff == 0 counts


# --- float scales and NaN ---------------------------------------------------------------------------


def div(scale, a=ALL_BYTES, b=REVERSED):
    return "cortex_m::quantized_div.out", dict(
        self=a, self_zero_point=0, other=b, other_zero_point=0, output_zero_point=5, output_scale=scale,
        out=i8((256,), 0),
    )  # fmt: skip


def quantize(x, scale, zp):
    return "cortex_m::quantize_per_tensor.out", dict(
        input=torch.tensor(x, dtype=torch.float32), scale=scale, zero_point=zp, quant_min=-128, quant_max=127,
        dtype=1, out=i8((len(x),), 0),  # dtype: int8's ScalarType code
    )  # fmt: skip


def layer_norm(bias, out_zp=127):
    return "cortex_m::quantized_layer_norm.out", dict(
        input=torch.tensor([[-128, 127, 0, 5]], dtype=torch.int8), weight=torch.full((4,), 32767, dtype=torch.int16),
        bias=i32([bias] * 4), epsilon=0, output_zero_point=out_zp, output_multiplier=Q31_MAX, output_shift=0,
        out=i8((1, 4), 0),
    )  # fmt: skip


def avg_pool(side, x=-128):
    """One window over the whole side x side input: the int32 sum of side^2 bytes plus half the tap count."""
    return "cortex_m::quantized_avg_pool2d_nhwc.out", dict(
        input=i8((1, side, side, 1), x), kernel_size=[side, side], stride=[1, 1], padding=[0, 0], ceil_mode=False,
        zero_point=0, multiplier=1 << 30, shift=0, scratch=scratch(64), out=i8((1, 1, 1, 1), 0),
    )  # fmt: skip


def full(value, dtype=torch.int32):
    return "aten::full.out", dict(size=[4], fill_value=value, out=torch.zeros(4, dtype=dtype))


def bilinear(h_in, h_out):
    return "cortex_m::quantized_upsample_bilinear2d.out", dict(
        input=i8((1, 1, h_in, 2), 3), align_corners=False, out=i8((1, 1, h_out, 2), 0)
    )


def _case(fn, *args, **kwargs):
    return lambda: fn(*args, **kwargs)


def _planned(fn, names, *args, **kwargs):
    """A case whose named tensors are arena tensors: a check cannot vouch for values it reads at load."""

    def case():
        name, kw = fn(*args, **kwargs)
        return name, {**kw, "_planned": names}

    return case


REFUSED = {
    # name: (case, the argument named)
    "conv-bias-past-headroom": (_case(conv, BIAS_EDGE + 1, Q31_MAX, 0), "bias"),
    "conv-negative-bias-past-headroom": (_case(conv, -BIAS_EDGE - 1, Q31_MAX, 0), "bias"),
    "conv-huge-k-without-bias": (_case(conv, None, Q31_MAX, 0, k=1, c_in=65794), "bias"),
    # far past the edge, with inputs that take the unchecked sum past int32 (UBSan's signed overflow before)
    "conv-bias-near-int32-max": (_case(conv, I32_MAX - 100, Q31_MAX, 0), "bias"),
    "depthwise-bias-near-int32-max": (_case(depthwise, I32_MAX - 100, Q31_MAX, 0), "bias"),
    "transpose-conv-bias-near-int32-max": (_case(transpose_conv, I32_MAX - 100, Q31_MAX, 0), "bias"),
    "linear-kernel-sum-near-int32-max": (_case(linear, [I32_MAX - 100], [Q31_MAX], [0]), "kernel_sum"),
    "conv-negative-multiplier": (_case(conv, 0, -1, 0), "requantize_multipliers"),
    "conv-shift-wraps": (_case(conv, 0, Q31_MAX, 17, k=1, in_off=0), "requantize_shifts"),
    "conv-shift-31": (_case(conv, 0, 1 << 30, 31, k=1, in_off=0), "requantize_shifts"),
    "depthwise-bias-past-headroom": (_case(depthwise, BIAS_EDGE + 1, Q31_MAX, 0), "bias"),
    "transpose-conv-bias-past-headroom": (_case(transpose_conv, I32_MAX - 255 - 4 * 255 * 128 + 1, Q31_MAX, 0), "bias"),
    "linear-kernel-sum-past-headroom": (
        _case(linear, [0, I32_MAX - 255 - 16 * 128 * 128 + 1], [Q31_MAX], [0]),
        "kernel_sum",
    ),
    "linear-bias-past-headroom": (
        _case(linear, [I32_MAX - 255 - 16 * 255 * 255 + 1], [Q31_MAX], [0], ksum=False, f_off=128),
        "bias",
    ),
    "linear-negative-multiplier": (_case(linear, [0, 0], [Q31_MAX, -5], [0, 0]), "requantize_multipliers"),
    "linear-shift-wraps": (_case(linear, [0], [Q31_MAX], [17], k=1), "requantize_shifts"),
    "bmm-k-too-long": (_case(bmm, 33026, Q31_MAX, 0), "lhs"),
    "bmm-shift-wraps": (_case(bmm, 1, Q31_MAX, 17, lhs_off=0, rhs_off=0), "output_shift"),
    "bmm-negative-multiplier": (_case(bmm, 1, -(1 << 31), 0), "output_multiplier"),
    "add-self-shift-wraps": (_case(add, Q31_MAX, 4, Q31_MAX, 0), "self_shift"),
    "add-sum-overflows": (_case(add, Q31_MAX, 3, Q31_MAX, 3), "other_shift"),
    "add-output-shift-wraps": (_case(add, Q31_MAX, 2, Q31_MAX, 2, s_out=1), "output_shift"),
    "mul-output-shift-wraps": (_case(mul, Q31_MAX, 16), "output_shift"),
    "mul-output-shift-31": (_case(mul, 1, 31), "output_shift"),
    "prelu-positive-shift-wraps": (_case(prelu, 4, -Q31_MAX, 0), "positive_shift"),
    "prelu-negative-shift-wraps": (_case(prelu, 0, -Q31_MAX, 4), "negative_shifts"),
    "softmax-negative-shift": (_case(softmax, 8, 1 << 30, -1, 0), "input_shift"),
    "softmax-shift-31-with-differences": (_case(softmax, 8, 1 << 30, 31, -1), "input_shift"),
    "softmax-shift-24-full-range": (_case(softmax, 8, 1 << 30, 24, -255), "input_shift"),
    "softmax-row-4096": (_case(softmax, 4096, *SOFTMAX_1_16), "input"),
    "log-softmax-negative-shift": (_case(log_softmax, 1 << 30, -1, 0), "input_shift"),
    "log-softmax-shift-31-with-differences": (_case(log_softmax, 1 << 30, 31, -2), "input_shift"),
    "avg-pool-16m-taps": (_case(avg_pool, 4096), "kernel_size"),
    "div-scale-beyond-float": (_case(div, 1e39), "output_scale"),
    "quantize-inverse-scale-beyond-float": (_case(quantize, [1.0], 1e-39, 0), "scale"),
}

# constants the checks read must be the program's (BAD_ARG_VALUE naming them)
NOT_CONSTANT = {
    "conv-planned-bias": (_planned(conv, ("bias",), 0, Q31_MAX, 0), "bias"),
    "conv-planned-shifts": (_planned(conv, ("requantize_shifts",), 0, Q31_MAX, 0), "requantize_shifts"),
    "linear-planned-kernel-sum": (_planned(linear, ("kernel_sum",), [0], [Q31_MAX], [0]), "kernel_sum"),
    "prelu-planned-multipliers": (_planned(prelu, ("negative_multipliers",), 0, -1, 0), "negative_multipliers"),
}

ACCEPTED = {
    # the edges themselves, with inputs that drive the accumulator there
    "conv-bias-at-headroom": _case(conv, BIAS_EDGE, Q31_MAX, 0),
    "conv-negative-bias-at-headroom": _case(conv, -BIAS_EDGE, Q31_MAX, 0, w=-128, out_off=-128),
    "conv-shift-16-k1": _case(conv, 0, Q31_MAX, 16, k=1, in_off=0, x=-128, w=-128),
    "conv-shift-minus-31": _case(conv, BIAS_EDGE, Q31_MAX, -31, out_off=0),
    "conv-input-offset-minus-127": _case(conv, 12345, 1 << 30, -3, in_off=-127, x=-128, w=-128, out_off=0),
    "depthwise-bias-at-headroom": _case(depthwise, BIAS_EDGE, Q31_MAX, 0),
    "transpose-conv-bias-at-headroom": _case(transpose_conv, I32_MAX - 255 - 4 * 255 * 128, Q31_MAX, 0),
    "linear-kernel-sum-at-headroom": _case(linear, [0, I32_MAX - 255 - 16 * 128 * 128], [Q31_MAX], [0]),
    "linear-per-channel-edges": _case(
        linear, [-(I32_MAX - 255 - 16 * 128 * 128), 7], [Q31_MAX, 0], [0, -31], w=127, out_off=-128),
    "linear-bias-at-headroom": _case(
        linear, [I32_MAX - 255 - 16 * 255 * 255], [Q31_MAX], [0], ksum=False, f_off=128, x=127, w=127),
    "bmm-k-at-headroom": _case(bmm, 33025, Q31_MAX, 0),
    "bmm-shift-16": _case(bmm, 1, Q31_MAX, 16, lhs_off=0, rhs_off=0, x=-128, y=-128),
    "add-shift-edges": _case(add, Q31_MAX, 2, Q31_MAX, 2),
    "sub-negative-multiplier": _case(add, Q31_MAX, 2, -Q31_MAX, 2, zp2=127),
    "add-int32-min-multiplier": _case(add, -(1 << 31), 1, 1 << 30, -31),
    "mul-shift-15": _case(mul, Q31_MAX, 15),
    "prelu-shift-3": _case(prelu, 3, -Q31_MAX, 3),
    "softmax-row-4095": _case(softmax, 4095, *SOFTMAX_1_16),
    "softmax-row-600-random": _case(
        softmax, 600, *SOFTMAX_1_16, x=torch.from_numpy(np.random.default_rng(1).integers(-128, 128, (3, 600), np.int8))),
    "softmax-shift-31": _case(softmax, 64, *MAX_SHIFT, x=ROWS),
    "softmax-shift-23-full-range": _case(softmax, 64, 1 << 30, 23, -255, x=ROWS),
    "log-softmax-shift-31": _case(log_softmax, *MAX_SHIFT),
    "avg-pool-taps-at-edge": _case(avg_pool, 4080),
    "bilinear-empty-axis": _case(bilinear, 0, 0),  # gcd(0, 0, 0): the check divided by zero
    "div-scale-float-max": _case(div, 3.4e38),
    "quantize-nan-with-zero-point-outside": _case(quantize, [float("nan"), float("inf"), -float("inf"), 3e38], 1.0, 1000),
    "layer-norm-saturated-bias": _case(layer_norm, I32_MAX),
    "layer-norm-saturated-negative-bias": _case(layer_norm, -(1 << 31), out_zp=-128),
}  # fmt: skip

# The portable kernels' float -> int conversions: NaN is 0, beyond int64 saturates, then narrows (low bits).
PORTABLE = {
    "full-int32-nan": _case(full, float("nan")),
    "full-int64-huge": _case(full, 1e300, torch.int64),
    "full-int32-minus-inf": _case(full, -float("inf")),
}
ACCEPTED.update(PORTABLE)

# NaN quantizes to the zero point, here clamped into int8 (the reference leaves NaN to numpy's cast)
EXPECTED = {
    "quantize-nan-with-zero-point-outside": [127, 127, -128, 127],
    "full-int32-nan": [0] * 4,
    "full-int64-huge": [(1 << 63) - 1] * 4,
    "full-int32-minus-inf": [0] * 4,  # INT64_MIN's low 32 bits
    "bilinear-empty-axis": [],
}

CASES = {**{name: case for name, (case, _) in {**REFUSED, **NOT_CONSTANT}.items()}, **ACCEPTED}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if not H.asan_runtime() or not H.Path(H.asan_runtime()).is_file():
        pytest.skip("no libasan for the host cc")
    lib = H.build_library(tmp_path_factory.mktemp("kernel_ranges"))
    return H.run_cases(lib, "test_kernel_ranges", CASES)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_constant_outside_the_arithmetic_is_refused_naming_it(results, name):
    assert (results[name]["err"], results[name]["arg"]) == (ARITH, REFUSED[name][1])


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_edges_run_clean_and_bit_exact(results, name):
    assert results[name]["err"] == 0, results[name]
    expected = EXPECTED.get(name)
    expected = H.reference(ACCEPTED[name]).astype(np.int64) if expected is None else expected
    np.testing.assert_array_equal(np.asarray(results[name]["out"]), expected)


@pytest.mark.parametrize("name", sorted(NOT_CONSTANT))
def test_values_read_at_load_must_be_constants(results, name):
    assert (results[name]["err"], results[name]["arg"]) == (BAD_VALUE, NOT_CONSTANT[name][1])
