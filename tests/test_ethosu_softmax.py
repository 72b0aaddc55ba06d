"""CMSIS-NN's arm_softmax_s8 as a TOSA 1.0 INT graph (mcu_export.ethosu.softmax_tosa) is bit-exact, and Vela 5.2
places all of it on the NPU.

- the byte TABLEs put together are arm_softmax_s8's exps for every difference, zero where it does not count;
- the per-row chain (CLZ, shifts, Newton-Raphson in MUL/ADD/SUB) run through TOSA's reference model equals
  one_over_one_plus_x and 35 - headroom for every power-of-two row sum and sampled others; over all 2^27 values
  its input can take it equals a vectorized one_over_one_plus_x and stays inside every TOSA range requirement
  (exhaustive, in C: tests/support/newton_raphson_check.c, held to the numpy check on a strided sample);
- whole softmax graphs through the reference model equal arm_softmax_s8 on random rows, saturated rows, rows of
  equal values, rows at diff_min and one below, for (mult, shift, diff_min) of input scales 2^-8..2^0 (and the
  keyword-spotting 0.1), rows of 1..64 elements (and the longest allowed, 511), ranks 2 to 4;
- Vela compiles it for ethos-u55-128, ethos-u65-256 and ethos-u85-256 with every operator on the NPU (slow).
"""

import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcu_export.ethosu import softmax_tosa as sm
from mcu_export.ethosu.tosa import TosaGraph, run_reference
from mcu_export.int8.arith import INT32_MAX, INT32_MIN
from mcu_export.int8.reference.softmax import (
    arm_softmax_s8,
    doubling_high_mult,
    exp_on_negative_values,
    one_over_one_plus_x,
    softmax_params,
)

ts = pytest.importorskip("tosa_serializer", reason="needs tosa-tools (pip install tosa-tools)")
rm = pytest.importorskip("tosa_reference_model", reason="needs tosa-tools (pip install tosa-tools)")

SCALES = [2.0**e for e in range(-8, 1)] + [0.1, 0.0371, 0.3]  # 2^-8..2^0, keyword spotting's ~0.1, two others
PARAMS = [softmax_params(s) for s in SCALES]
ROW_LENGTHS = [1, 2, 3, 5, 8, 12, 16, 31, 32, 64]
KWS = softmax_params(0.1)


def tosa_softmax(x: np.ndarray, params) -> np.ndarray:
    g = TosaGraph()
    src = g.input(x.shape)
    g.output(sm.softmax(g, src, x.shape, *params))
    return run_reference(g.serialize(), [x])[0]


def assert_exact(x: np.ndarray, params) -> None:
    np.testing.assert_array_equal(tosa_softmax(x, params), arm_softmax_s8(x, *params))


# ---- the exp tables --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("params", PARAMS, ids=[f"scale{s:.4g}" for s in SCALES])
def test_byte_tables_are_the_exps_that_count(params):
    mult, shift, diff_min = params
    diff = np.arange(-255, 1, dtype=np.int64)
    tables = sm.byte_tables(*params)
    assert len(tables) == 4 and all(t.dtype == np.int8 and t.shape == (256,) for t in tables)
    exps = sum((t.astype(np.int64) + (128 if k < 3 else 0)) << (8 * k) for k, t in enumerate(tables))
    expected = exp_on_negative_values(doubling_high_mult(diff << shift, mult))  # no wrap for counted diffs
    np.testing.assert_array_equal(exps[diff >= diff_min], expected[diff >= diff_min])
    assert not exps[diff < diff_min].any()
    assert exps[-1] == INT32_MAX and exps.min() >= 0  # diff 0 always counts: every row sum is >= 2^19


# ---- the per-row chain -----------------------------------------------------------------------------------------
def reference_row(total: int):
    headroom = 32 - total.bit_length()
    return one_over_one_plus_x(((total << headroom) & 0xFFFFFFFF) - (1 << 31)), 35 - headroom


def test_reciprocal_chain_equals_one_over_one_plus_x_on_the_reference_model():
    rng = np.random.default_rng(7)
    powers = [1 << k for k in range(19, 28)]
    edges = [v + d for v in powers for d in (-1, 1) if (1 << 19) <= v + d < sm.MAX_ROW << 19]
    totals = [*powers, *edges, sm.MAX_ROW << 19, 12 << 19, *rng.integers(1 << 19, sm.MAX_ROW << 19, 3000)]
    totals = np.array(totals, dtype=np.int32)
    g = TosaGraph()
    src = g.input([1, totals.size], ts.DType.INT32)
    for t in sm.reciprocal(g, src, totals.size):
        g.output(t)
    scale, bits = run_reference(g.serialize(), [totals[None, :]])
    expected = np.array([reference_row(int(t)) for t in totals])
    np.testing.assert_array_equal(scale[0], expected[:, 0])
    np.testing.assert_array_equal(bits[0], expected[:, 1])


def _dhm(a, b):
    return (a * b + (1 << 30)) >> 31  # no INT32_MIN * INT32_MIN here: half and x are positive


def _sat_shift(v, exp):
    thresh = (1 << (31 - exp)) - 1
    return np.where(v > thresh, INT32_MAX, np.where(v < -thresh, INT32_MIN, v << exp))


def _in_int32(v) -> bool:
    return bool(v.min() >= INT32_MIN and v.max() <= INT32_MAX)


def check_newton_raphson(half: np.ndarray) -> tuple:
    """The graph's per-row arithmetic in TOSA's terms (asserting every TOSA range requirement) against
    one_over_one_plus_x vectorized; returns how many x reach 2^30 (where the x 2 saturates) and the sum of the
    scales (tests/support/newton_raphson_check.c prints the same two)."""
    # one_over_one_plus_x as the reference writes it, from val = (total << headroom) - 2^31 = 2 * half - 2^31
    val = 2 * half - (1 << 31)
    half_denominator = (val + INT32_MAX + 1) >> 1
    ref = 1515870810 + _dhm(half_denominator, -1010580540)
    for _ in range(3):
        ref = ref + _sat_shift(_dhm(ref, (1 << 29) - _dhm(half_denominator, ref)), 2)
        assert _in_int32(ref)
    ref = _sat_shift(ref, 1)
    # the graph: MUL(shift 31) results, SUB/ADD results and the shifted values must all fit int32
    x = sm.NR_CONSTANT + _dhm(half, sm.NR_SLOPE)
    for _ in range(3):
        inner = sm.NR_ONE - _dhm(half, x)
        q = _dhm(x, inner)
        assert _in_int32(inner) and np.abs(q).max() < 1 << 29  # q << 2 neither overflows nor saturates
        x = x + (q << 2)
        assert _in_int32(x)
    assert x.min() > 0 and x.max() <= 1 << 30
    scale = x + np.minimum(x, (1 << 30) - 1)
    assert _in_int32(scale)
    np.testing.assert_array_equal(scale, ref)
    return int(np.count_nonzero(x == 1 << 30)), int(scale.sum())


def test_vectorized_one_over_one_plus_x_is_the_reference():
    rng = np.random.default_rng(3)
    half = np.array([1 << 30, (1 << 31) - 8, *(rng.integers(1 << 27, 1 << 28, 300) * 8)], dtype=np.int64)
    val = 2 * half - (1 << 31)
    check_newton_raphson(half)  # the graph's arithmetic equals the vectorized copy; the copy equals the reference:
    x = 1515870810 + _dhm((val + INT32_MAX + 1) >> 1, -1010580540)
    half_denominator = (val + INT32_MAX + 1) >> 1
    for _ in range(3):
        x = x + _sat_shift(_dhm(x, (1 << 29) - _dhm(half_denominator, x)), 2)
    np.testing.assert_array_equal(_sat_shift(x, 1), [one_over_one_plus_x(int(v)) for v in val])


def test_newton_raphson_on_a_strided_sample_of_its_inputs():
    half = np.arange(1 << 30, 1 << 31, 8 * 1021, dtype=np.int64)  # from 2^30, the one saturating input
    assert check_newton_raphson(half)[0] == 1


@pytest.fixture(scope="module")
def nr_check(tmp_path_factory):
    """tests/support/newton_raphson_check.c built here: check_newton_raphson's arithmetic in C."""
    exe = tmp_path_factory.mktemp("nr") / "newton_raphson_check"
    source = Path(__file__).parent / "support" / "newton_raphson_check.c"
    subprocess.run(["cc", "-std=c11", "-O2", "-Wall", "-Werror", str(source), "-o", str(exe)], check=True)

    def run(start: int, stop: int, step: int):
        args = [str(v) for v in (start, stop, step, sm.NR_CONSTANT, sm.NR_SLOPE, sm.NR_ONE)]
        out = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        words = out.stdout.split()
        return int(words[1]), int(words[3])

    return run


def test_the_c_check_is_the_numpy_check(nr_check):
    step = 8 * 1021
    assert nr_check(1 << 30, 1 << 31, step) == check_newton_raphson(np.arange(1 << 30, 1 << 31, step, dtype=np.int64))


@pytest.mark.slow
def test_newton_raphson_on_every_input(nr_check):
    """Rows of at most MAX_ROW elements: total in [2^19, 2^28), so half = total << (headroom - 1) is a multiple
    of 8 in [2^30, 2^31); all 2^27 of them, in C (numpy took three minutes on a loaded machine). Only
    half = 2^30 (a power-of-two total) saturates the final x 2."""
    assert nr_check(1 << 30, 1 << 31, 8)[0] == 1


# ---- whole softmax graphs --------------------------------------------------------------------------------------
def special_rows(n: int, diff_min: int, rng) -> np.ndarray:
    """24 rows: random, narrow-spread random, all equal, one saturating maximum, and rows at diff_min."""
    rows = [rng.integers(-128, 128, n) for _ in range(10)]
    for _ in range(4):
        top = int(rng.integers(-128, 128))
        rows.append(np.clip(top - rng.integers(0, int(rng.integers(1, 8)), n), -128, 127))
    rows += [np.full(n, v) for v in (-128, 0, 127)]
    for low in (-128, 0):
        row = np.full(n, low)
        row[rng.integers(n)] = 127
        rows.append(row)
    for d in (diff_min - 1, diff_min, diff_min + 1):  # maximum 127, the others 127 + d (-128 below diff -255)
        row = np.full(n, np.clip(127 + d, -128, 127))
        row[0] = 127
        if n > 2:
            row[1:3] = np.clip(127 + d + np.array([1, -1]), -128, 127)
        rows.append(row)
    rows.append(np.arange(n) % 256 - 128)
    rows.append(127 - 2 * (np.arange(n) % 128))
    assert len(rows) == 24
    return np.stack(rows).astype(np.int8)


@pytest.mark.parametrize("n", ROW_LENGTHS)
@pytest.mark.parametrize("params", PARAMS, ids=[f"scale{s:.4g}" for s in SCALES])
def test_softmax_matches_arm_softmax_s8(params, n):
    rng = np.random.default_rng([n, params[1], -params[2]])
    x = special_rows(n, params[2], rng)
    rank = 2 + (n + params[1]) % 3
    x = x.reshape({2: (24, n), 3: (4, 6, n), 4: (2, 3, 4, n)}[rank])
    assert_exact(x, params)


def test_rows_at_diff_min_use_the_mask():
    """A difference of exactly diff_min counts, one below gives -128: both on the graph and in the reference."""
    mult, shift, diff_min = softmax_params(0.5)  # diff_min -31
    x = np.array([[127, 127 + diff_min, 127 + diff_min - 1, 0]], dtype=np.int8)
    out = tosa_softmax(x, (mult, shift, diff_min))
    np.testing.assert_array_equal(out, arm_softmax_s8(x, mult, shift, diff_min))
    assert out[0, 2] == -128


@settings(max_examples=40, deadline=None)
@given(
    st.floats(-8.0, 0.0),
    st.integers(2, 4),
    st.integers(1, 64),
    st.lists(st.integers(1, 3), min_size=3, max_size=3),
    st.integers(0, 2**32 - 1),
)
def test_softmax_random_shapes_and_scales(log2_scale, rank, n, outer, seed):
    params = softmax_params(2.0**log2_scale)
    rng = np.random.default_rng(seed)
    shape = (*outer[: rank - 1], n)
    spread = int(rng.integers(1, 257))
    x = np.clip(int(rng.integers(-128, 128)) - rng.integers(0, spread, shape), -128, 127).astype(np.int8)
    assert_exact(x, params)


def test_keyword_spotting_case():
    """[1, 12] at input scale 0.1 (diff_min -248), the shape the keyword-spotting example softmaxes."""
    rng = np.random.default_rng(12)
    g = TosaGraph()
    src = g.input([1, 12])
    g.output(sm.softmax(g, src, [1, 12], *KWS))
    graph = g.serialize()
    for _ in range(40):
        x = np.clip(rng.normal(0, rng.uniform(5, 90), (1, 12)), -128, 127).astype(np.int8)
        np.testing.assert_array_equal(run_reference(graph, [x])[0], arm_softmax_s8(x, *KWS))
    many = rng.integers(-128, 128, (2000, 12)).astype(np.int8)
    assert_exact(many, KWS)


@pytest.mark.parametrize("scale", [2.0**-8, 0.1, 1.0])
def test_longest_rows(scale):
    """MAX_ROW elements: all equal puts the row sum at its largest (511 * 2^19: headroom 4, the shift 31)."""
    params = softmax_params(scale)
    rng = np.random.default_rng(511)
    x = np.stack([np.full(sm.MAX_ROW, 5), rng.integers(-128, 128, sm.MAX_ROW), np.full(sm.MAX_ROW, -128)])
    assert_exact(x.astype(np.int8), params)


def test_rejects_what_it_cannot_keep_exact():
    g = TosaGraph()
    with pytest.raises(ValueError, match="at most 511"):
        sm.softmax(g, g.input([1, 512]), [1, 512], *KWS)
    with pytest.raises(ValueError, match="out of range"):
        sm.softmax(g, g.input([1, 4]), [1, 4], KWS[0], KWS[1], 3)


# ---- Vela --------------------------------------------------------------------------------------------------------
def vela_softmax(shape, params, accelerator):
    from mcu_export.ethosu.vela import compile_tosa

    g = TosaGraph()
    src = g.input(shape)
    g.output(sm.softmax(g, src, shape, *params))
    return compile_tosa(g.serialize(), accelerator, name="softmax")


# Vela 5.2's NPU cycle estimates for [1, 12] at input scale 0.1 (1,155 on U55-128, 777 on U85-256, 2,507 on
# U65-256 with its default DRAM memory mode): bounds that catch a return to standalone LUT passes (2,707 and
# 1,854 on the U55 and U85), not the exact figures.
KWS_CYCLE_BOUNDS = {"ethos-u55-128": 1500, "ethos-u65-256": 3500, "ethos-u85-256": 1100}


@pytest.mark.slow
@pytest.mark.parametrize("accelerator", sorted(KWS_CYCLE_BOUNDS))
def test_vela_places_the_keyword_spotting_softmax_on_the_npu(accelerator):
    result = vela_softmax([1, 12], KWS, accelerator)
    assert result.layers and {layer["target"] for layer in result.layers} == {"NPU"}
    cycles = result.estimates["cycles_npu"]
    print(f"softmax [1, 12] on {accelerator}: {cycles:.0f} NPU cycles (Vela estimate)")
    assert 0 < cycles < KWS_CYCLE_BOUNDS[accelerator]


@pytest.mark.slow
@pytest.mark.parametrize("accelerator", ["ethos-u55-128", "ethos-u85-256"])
@pytest.mark.parametrize("shape", [(1, 1), (4, 12), (2, 3, 17), (2, 2, 2, 64), (1, sm.MAX_ROW)])
def test_vela_compiles_other_shapes(shape, accelerator):
    result = vela_softmax(list(shape), softmax_params(2.0**-4), accelerator)
    assert {layer["target"] for layer in result.layers} == {"NPU"} and result.estimates["cycles_npu"] > 0
