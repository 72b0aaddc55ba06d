"""The numpy references of arm_convolve_s8, arm_depthwise_conv_s8 and arm_fully_connected_s8 equal TOSA's
reference model bit for bit on single-op graphs: CONV2D / DEPTHWISE_CONV2D (int8 in, int32 accumulator,
bias added in int32, zero points as TOSA tensors: input_zp = -input_offset, weight_zp = -filter_offset)
followed by RESCALE (int32 -> int8, per channel for convolutions, output_zp = output_offset) and CLAMP.
TOSA 1.0 has no fully-connected op: it is a 1x1 CONV2D over an [N, 1, 1, C_in] input.

Rounding: CMSIS-NN's default arm_nn_requantize (no CMSIS_NN_USE_SINGLE_ROUNDING) rounds twice, in the
doubling high multiply and again in the rounding right shift (ties away from zero); TOSA's RESCALE with
rounding_mode DOUBLE_ROUND reproduces it (a CMSIS-NN (multiplier, shift) is TOSA's shift 31 - shift).
SINGLE_ROUND does not: test_single_round_is_not_cmsis_nn shows outputs where it differs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcu_export.ethosu.tosa import TosaGraph, run_reference
from mcu_export.int8.arith import quantize_multiplier
from mcu_export.int8.reference import convolution, depthwise, fully_connected

ts = pytest.importorskip("tosa_serializer", reason="needs tosa-tools (pip install tosa-tools)")
rm = pytest.importorskip("tosa_reference_model", reason="needs tosa-tools (pip install tosa-tools)")


def tosa_conv(kind, x, w, bias, *, out_shape, mode=None, **params):
    """kind "conv" (w [OC, KH, KW, IC]) or "depthwise" (w [KH, KW, C, M]) -> RESCALE -> CLAMP, built by the
    library's TosaGraph and run on TOSA's reference model."""
    g = TosaGraph()
    src = g.input(x.shape)
    g.output(
        g.conv("conv" if kind == "conv" else "depthwise", src, w, bias, out_shape=out_shape, rounding=mode, **params)
    )
    return run_reference(g.serialize(), [x])[0]


def _axis(rng, size_max, k_max):
    """size, kernel, stride, dilation, pad_before, pad_after with TOSA's exact output size: CMSIS-NN's output
    is the smallest that reaches the input's end, and its bottom/right padding is what that output needs."""
    size, k = int(rng.integers(1, size_max + 1)), int(rng.integers(1, k_max + 1))
    s, d = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    eff = (k - 1) * d + 1
    before = int(rng.integers(0, eff))
    out = max(1, -(-(size + before - eff) // s) + 1)
    after = (out - 1) * s + eff - size - before
    return size, k, s, d, before, after, out


def _case(seed, depthwise_op):
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 13))
    h, kh, sh, dh, pt, pb, oh = _axis(rng, 10, 4)
    w, kw, sw, dw, pl, pr, ow = _axis(rng, 10, 4)
    mult = int(rng.integers(1, 4)) if depthwise_op else 1
    oc = c * mult if depthwise_op else int(rng.integers(1, 13))
    x = rng.integers(-128, 128, (n, h, w, c), dtype=np.int8)
    wt = rng.integers(-127, 128, (1, kh, kw, oc) if depthwise_op else (oc, kh, kw, c), dtype=np.int8)
    bias = rng.integers(-(1 << 18), 1 << 18, oc).astype(np.int32) if rng.random() < 0.8 else None
    pairs = [quantize_multiplier(float(np.exp(rng.uniform(np.log(1e-4), np.log(0.5))))) for _ in range(oc)]
    lo, hi = sorted(int(v) for v in rng.integers(-128, 128, 2)) if rng.random() < 0.5 else (-128, 127)
    common = dict(
        input_offset=-int(rng.integers(-128, 128)),
        output_offset=int(rng.integers(-128, 128)),
        multipliers=[m for m, _ in pairs],
        shifts=[s for _, s in pairs],
        stride=(sh, sw),
        dilation=(dh, dw),
        activation=(lo, hi),
    )
    return x, wt, bias, mult, common, (pt, pb, pl, pr), (n, oh, ow, oc)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_conv2d_matches_tosa(seed):
    x, w, bias, _, p, pads, out_shape = _case(seed, False)
    ref = convolution.arm_convolve_s8(x, w, bias, padding=(pads[0], pads[2]), output_hw=out_shape[1:3], **p)
    got = tosa_conv("conv", x, w, bias, filter_offset=0, pad_tblr=pads, out_shape=out_shape, **p)
    np.testing.assert_array_equal(got, ref)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_depthwise_conv2d_matches_tosa(seed):
    x, w, bias, mult, p, pads, out_shape = _case(seed, True)
    ref = depthwise.arm_depthwise_conv_s8(
        x, w, bias, ch_mult=mult, padding=(pads[0], pads[2]), output_hw=out_shape[1:3], **p
    )
    tosa_w = w.reshape(w.shape[1], w.shape[2], x.shape[3], mult)  # [KH, KW, C, M]: channel c*M + m
    got = tosa_conv("depthwise", x, tosa_w, bias, filter_offset=0, pad_tblr=pads, out_shape=out_shape, **p)
    np.testing.assert_array_equal(got, ref)


def _fc_case(seed):
    rng = np.random.default_rng(seed)
    n, depth, oc = int(rng.integers(1, 5)), int(rng.integers(1, 64)), int(rng.integers(1, 24))
    x = rng.integers(-128, 128, (n, depth), dtype=np.int8)
    w = rng.integers(-127, 128, (oc, depth), dtype=np.int8)
    bias = rng.integers(-(1 << 18), 1 << 18, oc).astype(np.int32) if rng.random() < 0.8 else None
    m, s = quantize_multiplier(float(np.exp(rng.uniform(np.log(1e-4), np.log(0.5)))))
    p = dict(
        input_offset=-int(rng.integers(-128, 128)),
        output_offset=int(rng.integers(-128, 128)),
        filter_offset=0 if rng.random() < 0.5 else -int(rng.integers(-128, 128)),
        activation=(-128, 127),
    )
    return x, w, bias, m, s, p


def tosa_fully_connected(x, w, bias, m, s, p, mode=None):
    n, depth = x.shape
    return tosa_conv(
        "conv",
        x.reshape(n, 1, 1, depth),
        w.reshape(w.shape[0], 1, 1, depth),
        bias,
        multipliers=[m],
        shifts=[s],
        stride=(1, 1),
        pad_tblr=(0, 0, 0, 0),
        dilation=(1, 1),
        out_shape=(n, 1, 1, w.shape[0]),
        mode=mode,
        **p,
    ).reshape(n, w.shape[0])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_fully_connected_matches_tosa_1x1_conv2d(seed):
    x, w, bias, m, s, p = _fc_case(seed)
    ref = fully_connected.arm_fully_connected_s8(x, w, bias, multiplier=m, shift=s, **p)
    np.testing.assert_array_equal(tosa_fully_connected(x, w, bias, m, s, p), ref)


def test_single_round_is_not_cmsis_nn():
    """Over enough outputs SINGLE_ROUND lands somewhere off by one from CMSIS-NN; DOUBLE_ROUND never does."""
    rng = np.random.default_rng(5)
    x = rng.integers(-20, 21, (64, 1), dtype=np.int8)  # small sums and a small shift: many ties in reach
    w = rng.integers(-20, 21, (64, 1), dtype=np.int8)
    m, s = quantize_multiplier(0.3)
    p = dict(input_offset=0, output_offset=0, filter_offset=0, activation=(-128, 127))
    ref = fully_connected.arm_fully_connected_s8(x, w, None, multiplier=m, shift=s, **p)
    np.testing.assert_array_equal(tosa_fully_connected(x, w, None, m, s, p, ts.RoundingMode.DOUBLE_ROUND), ref)
    single = tosa_fully_connected(x, w, None, m, s, p, ts.RoundingMode.SINGLE_ROUND)
    assert np.count_nonzero(single != ref) > 0
