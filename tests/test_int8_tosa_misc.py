"""The numpy references of arm_elementwise_add_s8, arm_max_pool_s8 and arm_avgpool_s8 equal TOSA's
reference model on single-op TOSA graphs, bit for bit.

CMSIS-NN's add (left shift, per-input requantize, int32 sum, output requantize) is written in TOSA as
RESCALE(int8 -> int32, x 2^left_shift) -> RESCALE(int32 -> int32, input multiplier/shift) per input,
ADD (int32), RESCALE(int32 -> int8, output multiplier/shift, output zero point), CLAMP.
Rounding: CMSIS-NN's default requantization (arm_nn_requantize without CMSIS_NN_USE_SINGLE_ROUNDING:
a rounding doubling high multiply, then a rounding right shift with ties away from zero) is reproduced by
RESCALE with rounding_mode DOUBLE_ROUND; SINGLE_ROUND (one rounding of value * multiplier >> shift, CMSIS_NN_USE_SINGLE_ROUNDING's
arithmetic) differs from the default build where the first rounding lands on a tie, which
test_rescale_rounding_modes_against_arm_nn_requantize shows. AVG_POOL2D (int8, zero points 0) and
MAX_POOL2D need no rescale: TOSA's reciprocal-multiply average equals CMSIS-NN's rounded division
(ties away from zero) for these window sizes, and both leave padding out of the window."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcu_export.ethosu.tosa import TosaGraph, run_reference
from mcu_export.int8.arith import requantize
from mcu_export.int8.reference import elementwise, pooling

ts = pytest.importorskip("tosa_serializer", reason="needs tosa-tools (pip install tosa-tools)")
rm = pytest.importorskip("tosa_reference_model", reason="needs tosa-tools (pip install tosa-tools)")


def tosa_add(a, b, p, act_min, act_max, mode=None):
    g = TosaGraph()
    x1, x2 = g.input(a.shape), g.input(b.shape)
    g.output(g.add(x1, x2, list(a.shape), p, (act_min, act_max), rounding=mode))
    return run_reference(g.serialize(), [a, b])[0]


def _add_case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    a, b = (rng.integers(-128, 128, size=(1, n), dtype=np.int8) for _ in range(2))
    scales = [float(2.0 ** rng.uniform(-9, 0)) for _ in range(3)]
    zps = [int(z) for z in rng.integers(-128, 128, size=3)]
    p = elementwise.add_params(scales[0], zps[0], scales[1], zps[1], scales[2], zps[2])
    act = (int(rng.integers(-128, 0)), int(rng.integers(0, 128))) if rng.random() < 0.5 else (-128, 127)
    return a, b, p, act


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_add_matches_tosa_double_round(seed):
    a, b, p, (lo, hi) = _add_case(seed)
    ref = elementwise.arm_elementwise_add_s8(a, b, **p, out_activation_min=lo, out_activation_max=hi)
    np.testing.assert_array_equal(tosa_add(a, b, p, lo, hi), ref)


def tosa_rescale_int32(values, multiplier, shift, mode):
    g = TosaGraph()
    src = g.input([values.size], ts.DType.INT32)
    g.output(g.rescale(src, [values.size], ts.DType.INT32, [multiplier], [shift], 0, 0, rounding=mode))
    return run_reference(g.serialize(), [values])[0]


@pytest.mark.parametrize("shift", [-1, -5, -9, -13])
def test_rescale_rounding_modes_against_arm_nn_requantize(shift):
    """One RESCALE against arm_nn_requantize on a million int32 values: DOUBLE_ROUND agrees everywhere,
    SINGLE_ROUND misses the values where the high multiply's rounding lands exactly on a tie."""
    rng = np.random.default_rng(-shift)
    values = rng.integers(-(1 << 31), 1 << 31, size=1 << 20, dtype=np.int64).astype(np.int32)
    multiplier = int(rng.integers(1 << 30, 1 << 31))
    ref = requantize(values, multiplier, shift)
    np.testing.assert_array_equal(tosa_rescale_int32(values, multiplier, shift, ts.RoundingMode.DOUBLE_ROUND), ref)
    single = tosa_rescale_int32(values, multiplier, shift, ts.RoundingMode.SINGLE_ROUND)
    assert np.count_nonzero(single != ref) > 0


def _pool_case(seed):
    """CMSIS-NN pads symmetrically and its output size decides how much of the bottom/right it reads;
    TOSA wants explicit [top, bottom, left, right] pads with an exact output size, each pad < kernel."""
    rng = np.random.default_rng(seed)
    while True:
        n, h, w, c = 1, int(rng.integers(1, 12)), int(rng.integers(1, 12)), int(rng.integers(1, 10))
        k = [int(rng.integers(1, h + 1)), int(rng.integers(1, w + 1))]
        s = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
        pad = [int(rng.integers(0, k[0])), int(rng.integers(0, k[1]))]
        out, tail = [], []
        for size, kk, ss, pp in zip((h, w), k, s, pad):
            o = -(-(size + pp - kk) // ss) + 1  # smallest output that reaches the end of the input
            out.append(o)
            tail.append((o - 1) * ss + kk - size - pp)
        if all(0 <= t < kk for t, kk in zip(tail, k)):
            x = rng.integers(-128, 128, size=(n, h, w, c), dtype=np.int8)
            return x, k, s, pad, tail, out


def tosa_pool(kind, x, k, s, pad, tail, out_hw):
    g = TosaGraph()
    src = g.input(x.shape)
    g.output(g.pool(kind, src, k, s, [pad[0], tail[0], pad[1], tail[1]], [x.shape[0], *out_hw, x.shape[3]]))
    return run_reference(g.serialize(), [x])[0]


@pytest.mark.parametrize("kind, ref", [("max", pooling.arm_max_pool_s8), ("avg", pooling.arm_avgpool_s8)])
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_pool_matches_tosa(kind, ref, seed):
    x, k, s, pad, tail, out_hw = _pool_case(seed)
    expected = ref(x, tuple(k), tuple(s), tuple(pad), tuple(out_hw))
    np.testing.assert_array_equal(tosa_pool(kind, x, k, s, pad, tail, out_hw), expected)
