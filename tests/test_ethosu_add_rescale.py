"""The Ethos-U add's one-RESCALE-per-operand form (mcu_export.ethosu.add_rescale) is bit-exact with CMSIS-NN's
arm_elementwise_add_s8, checked exhaustively, and Vela compiles it to one NPU operation.

- the Python model of TOSA's RESCALE (apply_scale_32) equals TOSA's reference model on every int8 input;
- a tier-1 form equals CMSIS-NN's per-operand stage on all 256 inputs, for random parameters and every zero
  point; how often one exists is measured (the larger-scale operand always: x 2^19 exactly);
- every form `add_form` returns makes the whole add equal arm_elementwise_add_s8 on all 256 x 256 pairs, and has
  the shape Vela fuses on the U55 (one operand x 2^19, the other below);
- whole TOSA adds (tier 1, tier 2, equal scales, subtraction, activation, the old chain) run through the
  reference model on all 256 x 256 pairs equal arm_elementwise_add_s8;
- Vela 5.2 makes one NPU pass of the new form, fewer passes and cycles than of the old chain.
"""

import numpy as np
import pytest

from mcu_export.ethosu import add_rescale as ar
from mcu_export.ethosu.tosa import TosaGraph, run_reference
from mcu_export.int8.reference import elementwise

ts = pytest.importorskip("tosa_serializer", reason="needs tosa-tools (pip install tosa-tools)")
rm = pytest.importorskip("tosa_reference_model", reason="needs tosa-tools (pip install tosa-tools)")

Q = np.arange(-128, 128, dtype=np.int8)


def _params(rng, zps=None, lo=-12.0, hi=2.0, subtract=None, equal=None):
    """TFLite's add parameters for random scales 2^lo..2^hi (sometimes equal input scales, sometimes a
    subtraction: a negative second multiplier, as the exporter writes x - y)."""
    scales = [float(2.0 ** rng.uniform(lo, hi)) for _ in range(3)]
    if equal if equal is not None else rng.random() < 0.1:
        scales[1] = scales[0]
    zps = [int(z) for z in rng.integers(-128, 128, size=3)] if zps is None else zps
    p = elementwise.add_params(scales[0], zps[0], scales[1], zps[1], scales[2], zps[2])
    if subtract if subtract is not None else rng.random() < 0.2:
        p["input_2_mult"] = -p["input_2_mult"]
    return p


def _stage(p, i):
    return ar.cmsis_operand_stage(p[f"input_{i}_offset"], abs(p[f"input_{i}_mult"]), p[f"input_{i}_shift"],
                                  p["left_shift"])  # fmt: skip


def _cmsis_all_pairs(p, act=(-128, 127)):
    a, b = np.meshgrid(Q, Q, indexing="ij")
    return elementwise.arm_elementwise_add_s8(a, b, **p, out_activation_min=act[0], out_activation_max=act[1])


# ---- the model of RESCALE against TOSA's reference model --------------------------------------------------
@pytest.mark.parametrize("double_round", [True, False])
def test_rescale_model_matches_reference_model(double_round):
    """RESCALE(int8 -> int32) of all 256 inputs for many (multiplier, shift, zero point), shifts 9..62 (both
    sides of the double-rounding threshold 31), against `add_rescale.rescale_int8`."""
    rng = np.random.default_rng(7 + double_round)
    forms = [(ar.Rescale(1 << 30, 11, double_round), 0), (ar.Rescale(0, 20, double_round), 5)]
    forms += [(ar.Rescale(int(rng.integers(1 << 30, 1 << 31)), s, double_round), int(rng.integers(-128, 128)))
              for s in (30, 31, 32, 33)]  # fmt: skip
    for _ in range(60):
        shift = int(rng.integers(9, 63))
        multiplier = int(rng.integers(0, min(1 << 31, 1 << (shift + 22))))  # results stay int32
        forms.append((ar.Rescale(multiplier, shift, double_round), int(rng.integers(-128, 128))))
    g = TosaGraph()
    x = g.input([256])
    for r, zp in forms:
        g.output(g._rescale_tosa(x, [256], ts.DType.INT32, r.multiplier, r.shift, zp, 0, ts.DType.INT8, r.double_round))
    results = run_reference(g.serialize(), [Q])
    for (r, zp), got in zip(forms, results):
        assert [int(v) for v in got] == ar.rescale_int8(r, zp), (r, zp)


def test_apply_scale_32_requires():
    with pytest.raises(ValueError):
        ar.apply_scale_32(256, 1 << 30, 9, True)  # value outside [-2^(shift-1), 2^(shift-1))
    with pytest.raises(ValueError):
        ar.apply_scale_32(1, -1, 20, True)
    with pytest.raises(ValueError):
        ar.apply_scale_32(1, 1, 63, True)
    assert ar.apply_scale_32(-3, 1 << 30, 31, False) == -1  # -1.5 rounds half up
    assert ar.apply_scale_32(-3, 1 << 30, 31, True) == -1  # shift 31: no double-round nudge
    assert ar.apply_scale_32(1, 1 << 30, 32, False) == 0  # 0.25
    assert ar.apply_scale_32(1, 1 << 30, 32, True) == 1  # 0.25 + 0.25 nudge (towards the value's sign) -> 0.5
    assert ar.apply_scale_32(-1, 1 << 30, 32, True) == 0  # -0.25 - 0.25 -> -0.5 rounds half up


# ---- tier 1: the operand stage, exactly -----------------------------------------------------------------
def test_operand_rescale_equals_cmsis_stage_for_every_zero_point():
    """For each of the 256 zero points (each operand in turn) and random scales over 14 octaves: the larger
    operand is x 2^19 (`unscaled()`), and wherever the smaller has a tier-1 RESCALE it equals CMSIS-NN's stage
    on all 256 inputs. Found for about 40 % of the smaller operands (the rest need tier 2)."""
    rng = np.random.default_rng(2024)
    found = smaller = 0
    for zp in range(-128, 128):
        p = _params(rng, zps=[zp, int(rng.integers(-128, 128)), int(rng.integers(-128, 128))], subtract=False)
        for i in (1, 2):
            r = ar.operand_rescale(p[f"input_{i}_offset"], p[f"input_{i}_mult"], p[f"input_{i}_shift"], 20)
            if p[f"input_{i}_mult"] == 1 << 30 and p[f"input_{i}_shift"] == 0:
                assert r == ar.unscaled()
            else:
                smaller += 1
                found += r is not None
            if r is not None:
                assert ar.rescale_int8(r, -p[f"input_{i}_offset"]) == _stage(p, i)
    assert smaller >= 200 and found / smaller > 0.3, (found, smaller)


def test_operand_rescale_examples():
    # x 2^19: the larger operand of every TFLite add
    assert ar.operand_rescale(-5, 1 << 30, 0, 20) == ar.unscaled()
    # the same values below 2^19, for the U55's scaled operand when both input scales are equal
    r = ar.operand_rescale(-5, 1 << 30, 0, 20, below_unscaled=True)
    assert r is not None and r.below_unscaled() and not r.is_unscaled()
    assert ar.rescale_int8(r, 5) == [(q - 5) << 19 for q in range(-128, 128)]
    # a multiplier rounding to 0 everywhere
    assert ar.rescale_int8(ar.operand_rescale(3, 0, 0, 20), -3) == [0] * 256


# ---- the whole add ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_add_form_is_exact_and_fusable(seed):
    """Random parameters (40 per seed, scales over 14 octaves, all zero points, subtractions, equal scales):
    one RESCALE per operand always, one operand x 2^19 and the other below (Vela's one-op form on the U55),
    and the add built from them equals arm_elementwise_add_s8 on all 256 x 256 pairs."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(40):
        p = _params(rng)
        forms = ar.add_form(p)
        assert None not in forms, p
        assert sum(f.is_unscaled() for f in forms) == 1 and all(f.is_unscaled() or f.below_unscaled() for f in forms)
        np.testing.assert_array_equal(ar.tosa_add_outputs(p, forms), _cmsis_all_pairs(p))


def test_add_form_keeps_the_chain_when_nothing_is_exact():
    """An output scale 2^25 below the inputs' has no valid TOSA form (the sums exceed the output RESCALE's
    input range) either way: add_form leaves both operands to the chain, as before."""
    p = {"input_1_offset": 65, "input_1_mult": 2093766927, "input_1_shift": -15, "input_2_offset": 49,
         "input_2_mult": 1 << 30, "input_2_shift": 0, "left_shift": 20, "out_offset": 94,
         "out_mult": 1871737113, "out_shift": 7}  # fmt: skip
    assert ar.add_form(p) == (None, None)


def _find(pred, seed, **kw):
    rng = np.random.default_rng(seed)
    while True:
        p = _params(rng, **kw)
        if pred(p):
            return p


def _smaller(p):
    return 2 if p["input_1_mult"] == 1 << 30 and p["input_1_shift"] == 0 else 1


def _tier1(p):
    i = _smaller(p)
    return ar.operand_rescale(p[f"input_{i}_offset"], abs(p[f"input_{i}_mult"]), p[f"input_{i}_shift"], 20) is not None


CASES = {
    "tier1": (lambda: _find(_tier1, 1, subtract=False, equal=False), (-128, 127)),
    "tier2": (lambda: _find(lambda p: _smaller(p) == 2 and not _tier1(p), 2, subtract=False, equal=False), (-128, 127)),
    "tier2_relu": (lambda: _find(lambda p: not _tier1(p), 3, subtract=False, equal=False), (-20, 127)),
    "equal_scales": (lambda: _params(np.random.default_rng(4), subtract=False, equal=True), (-128, 127)),
    "subtract_tier1": (lambda: _find(_tier1, 5, subtract=True, equal=False), (-128, 100)),
    "subtract_tier2": (lambda: _find(lambda p: not _tier1(p), 6, subtract=True, equal=False), (-128, 127)),
    "second_larger": (lambda: _find(lambda p: _smaller(p) == 1 and not _tier1(p), 7, subtract=False), (-128, 127)),
}


def _tosa_add(p, act, single_rescale=True):
    g = TosaGraph()
    shape = [1, 256 * 256]
    x1, x2 = g.input(shape), g.input(shape)
    g.output(g.add(x1, x2, shape, p, act, single_rescale=single_rescale))
    ops = [str(o.op) for o in g.ser.currRegion.currBasicBlock.operators if str(o.op) != "Op.CONST"]
    a, b = np.meshgrid(Q, Q, indexing="ij")
    return run_reference(g.serialize(), [a.reshape(shape), b.reshape(shape)])[0].reshape(256, 256), ops


@pytest.mark.parametrize("case", sorted(CASES))
def test_tosa_add_through_reference_model_on_all_pairs(case):
    make, act = CASES[case]
    p = make()
    got, ops = _tosa_add(p, act)
    np.testing.assert_array_equal(got, _cmsis_all_pairs(p, act))
    kind = "Op.SUB" if p["input_2_mult"] < 0 else "Op.ADD"
    assert ops == ["Op.RESCALE", "Op.RESCALE", kind, "Op.RESCALE"] + (["Op.CLAMP"] if act != (-128, 127) else [])
    forms = ar.add_form(p)
    tier2 = [ar.rescale_int8(f, -p[f"input_{i}_offset"]) != _stage(p, i) for i, f in zip((1, 2), forms)]
    assert any(tier2) == ("tier2" in case or case == "second_larger")
    # the model add_form verified with is the reference model's arithmetic
    np.testing.assert_array_equal(np.clip(got, *act), np.clip(ar.tosa_add_outputs(p, forms), *act))


def test_old_chain_still_exact_through_reference_model():
    p = CASES["tier2"][0]()
    got, ops = _tosa_add(p, (-128, 127), single_rescale=False)
    np.testing.assert_array_equal(got, _cmsis_all_pairs(p))
    assert ops.count("Op.RESCALE") == 5


# ---- Vela ------------------------------------------------------------------------------------------------
def _vela_add(p, accelerator, single_rescale):
    from mcu_export.ethosu.vela import compile_tosa

    g = TosaGraph()
    shape = [1, 16, 16, 16]
    x1, x2 = g.input(shape), g.input(shape)
    g.output(g.add(x1, x2, shape, p, (-128, 127), single_rescale=single_rescale))
    result = compile_tosa(g.serialize(), accelerator)
    return result.estimates["passes_after_fusing"], result.estimates["cycles_npu"], result.blob.scratch_size


@pytest.mark.slow
@pytest.mark.parametrize("accelerator", ["ethos-u55-128", "ethos-u85-256"])
@pytest.mark.parametrize("case", ["tier1", "tier2", "equal_scales", "subtract_tier2"])
def test_vela_fuses_the_single_rescale_add(accelerator, case):
    """Two [1, 16, 16, 16] int8 tensors: the new form is one NPU pass, the old chain several, slower, with more
    scratch (on the U55-128: 1 pass / 6,144 cycles against 6 / 32,768)."""
    p = CASES[case][0]()
    passes, cycles, scratch = _vela_add(p, accelerator, True)
    old_passes, old_cycles, old_scratch = _vela_add(p, accelerator, False)
    assert passes == 1 and old_passes > 1
    assert cycles < old_cycles and scratch < old_scratch
