"""One TOSA RESCALE per operand for CMSIS-NN's int8 add, found by exhaustive search over the int8 inputs.

arm_elementwise_add_s8 maps each int8 operand q to requantize((q - zp) << left_shift, mult, shift), an int32
rounded twice, adds the two and requantizes the sum. Vela 5.2 fuses RESCALE(int8 -> int32) per operand ->
ADD -> RESCALE(int32 -> int8) [-> CLAMP] into one NPU elementwise operation, but only when each operand's stage
is a single RESCALE from int8; and on the U55/U65 (measured) only when one operand's scale is exactly 2^19 and
the other's is below 2^19: the NPU's add scales one operand by a 32-bit multiplier and shift and takes the
other as (q - zp) * 2^19. TFLite's parameters make the larger-scale operand exactly that (multiplier 2^30,
shift 0 after the left shift of 20).

An operand takes at most 256 values, so "is there one RESCALE (multiplier M, shift S, rounding) giving the
same int32 for every q" is decided exactly: for each (S, rounding) every q bounds M to an interval, and the
intersection is the set of multipliers that work (`solve`). Two tiers, each checked exhaustively:
1. the RESCALE equals CMSIS-NN's operand stage on all 256 inputs (`operand_rescale`);
2. where none does (CMSIS-NN's second rounding is half away from zero, RESCALE's half up: a single rounding
   cannot follow both on negative ties), the RESCALE may differ from that stage as long as the add's int8
   output is unchanged for every one of the 256 x 256 input pairs: the output requantization is a step
   function, so for each q the allowed int32 values form an interval (`_allowed_intervals`).
`add_form` picks the forms and verifies the whole add (256 x 256 pairs against arm_elementwise_add_s8) before
returning them; an operand with no form keeps the two-RESCALE chain, which is exact. Over random TFLite
parameters (scales 2^-12..2^2, any zero points) the smaller operand has a tier-1 form about 45 % of the time
and a tier-2 form otherwise; the Ethos-U85 fuses any pair of single RESCALEs.

RESCALE is TOSA 1.0's with scale32: value = q - input_zp, then apply_scale_32(value, M, S, double_round)
(`apply_scale_32` below, checked against TOSA's reference model in tests/test_ethosu_add_rescale.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from mcu_export.int8.arith import requantize, wrap_int32

INT8_VALUES = tuple(range(-128, 128))
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
MULTIPLIER_MAX = INT32_MAX
SHIFT_MIN, SHIFT_MAX = 2, 62  # TOSA's bounds on RESCALE's shift
UNSCALED_LOG2 = 19  # the NPU add's implicit scale of its unscaled operand (TFLite's left shift 20, halved)


@dataclass(frozen=True)
class Rescale:
    """One TOSA RESCALE: multiplier M >= 0, TOSA shift S (value * M >> S), and its rounding mode."""

    multiplier: int
    shift: int
    double_round: bool

    def is_unscaled(self) -> bool:
        """Vela's view: the scale reduces to exactly 2^19 with no shift (the NPU add's unscaled operand)."""
        m, s = self.multiplier, self.shift
        return m % (1 << s) == 0 and m >> s == 1 << UNSCALED_LOG2

    def below_unscaled(self) -> bool:
        return self.multiplier < 1 << (self.shift + UNSCALED_LOG2)


def unscaled(double_round: bool = True) -> Rescale:
    """x 2^19 exactly, written as ExecuTorch's Arm backend writes it (multiplier 2^30, shift 11)."""
    return Rescale(1 << 30, 11, double_round)


def apply_scale_32(value: int, multiplier: int, shift: int, double_round: bool) -> int:
    """TOSA 1.0's apply_scale_32, with its REQUIREs (a ValueError where the spec calls the graph invalid)."""
    if multiplier < 0 or not SHIFT_MIN <= shift <= SHIFT_MAX:
        raise ValueError(f"apply_scale_32: multiplier {multiplier} / shift {shift} out of range")
    if not -(1 << (shift - 1)) <= value < 1 << (shift - 1):
        raise ValueError(f"apply_scale_32: value {value} out of range for shift {shift}")
    round_ = 1 << (shift - 1)
    if double_round and shift > 31:
        round_ += (1 << 30) if value >= 0 else -(1 << 30)
    result = (value * multiplier + round_) >> shift
    if not INT32_MIN <= result <= INT32_MAX:
        raise ValueError("apply_scale_32: result out of int32 range")
    return result


def rescale_int8(r: Rescale, zp: int) -> List[int]:
    """RESCALE(int8 -> int32, input zero point zp, output zero point 0) of every int8, -128..127."""
    return [apply_scale_32(q - zp, r.multiplier, r.shift, r.double_round) for q in INT8_VALUES]


def cmsis_operand_stage(offset: int, mult: int, shift: int, left_shift: int) -> List[int]:
    """arm_elementwise_add_s8's per-operand int32 for every int8 input, -128..127 (offset = -zero point)."""
    q = np.arange(-128, 128, dtype=np.int64)
    return [int(v) for v in requantize(wrap_int32((q + offset) << left_shift), mult, shift)]


def _multiplier_interval(lows, highs, zp: int, shift: int, double_round: bool) -> Optional[Tuple[int, int]]:
    """The multipliers M with lows[i] <= apply_scale_32(q - zp, M, shift) <= highs[i] for every q = i - 128,
    as an interval (lo, hi), or None when there is none."""
    lo, hi = 0, MULTIPLIER_MAX
    step = 1 << shift
    for q, t_low, t_high in zip(INT8_VALUES, lows, highs):
        v = q - zp
        if not -(1 << (shift - 1)) <= v < 1 << (shift - 1):
            return None  # RESCALE's REQUIRE on its input
        c = 1 << (shift - 1)
        if double_round and shift > 31:
            c += (1 << 30) if v >= 0 else -(1 << 30)
        low, high = t_low * step - c, (t_high + 1) * step - 1 - c  # low <= v * M <= high
        if v == 0:
            if not low <= 0 <= high:
                return None
            continue
        if v > 0:
            lo, hi = max(lo, -(-low // v)), min(hi, high // v)
        else:
            lo, hi = max(lo, -(-high // v)), min(hi, low // v)
        if lo > hi:
            return None
    return lo, hi


def solve(lows: Sequence[int], highs: Sequence[int], zp: int, *, ideal: float, double_round: bool = True,
          below_unscaled: bool = False) -> Optional[Rescale]:  # fmt: skip
    """A single RESCALE(int8 -> int32, input zero point `zp`) whose value for q lies in [lows, highs] (indexed by
    q + 128) for all 256 inputs, or None. Among the solutions: the shift nearest the natural one for the scale
    `ideal` (multiplier in [2^30, 2^31)), the preferred rounding first, the multiplier nearest ideal * 2^S.
    `below_unscaled` asks for a scale below 2^19 (what Vela needs from the U55's scaled add operand)."""
    natural = 30 - int(np.floor(np.log2(ideal))) if ideal > 0 else 31
    for shift in sorted(range(SHIFT_MIN, SHIFT_MAX + 1), key=lambda s: (abs(s - natural), s)):
        for mode in (double_round, not double_round):
            interval = _multiplier_interval(lows, highs, zp, shift, mode)
            if interval is None:
                continue
            lo, hi = interval
            if below_unscaled:
                hi = min(hi, (1 << (shift + UNSCALED_LOG2)) - 1)
                if lo > hi:
                    continue
            return Rescale(min(max(int(round(ideal * (1 << shift))), lo), hi), shift, mode)
    return None


def operand_rescale(offset: int, mult: int, shift: int, left_shift: int, *, double_round: bool = True,
                    below_unscaled: bool = False) -> Optional[Rescale]:  # fmt: skip
    """Tier 1: one RESCALE equal to CMSIS-NN's stage requantize((q + offset) << left_shift, mult, shift) on every
    int8 q (mult >= 0), or None. An exact x 2^19 comes back as `unscaled()` (unless `below_unscaled`)."""
    if mult < 0:
        raise ValueError("operand_rescale takes a non-negative multiplier")
    targets = cmsis_operand_stage(offset, mult, shift, left_shift)
    zp = -offset
    if not below_unscaled and targets == [(q - zp) << UNSCALED_LOG2 for q in INT8_VALUES]:
        return unscaled(double_round)
    ideal = mult * 2.0 ** (shift + left_shift - 31)
    return solve(targets, targets, zp, ideal=ideal, double_round=double_round, below_unscaled=below_unscaled)


# ---- the whole add ----------------------------------------------------------------------------------------
def _requantize_out(x: np.ndarray, p: Dict[str, int]) -> np.ndarray:
    """CMSIS-NN's output stage of the add, saturated to int8 (any fused activation clamps after it)."""
    return np.clip(requantize(x, p["out_mult"], p["out_shift"]) + p["out_offset"], -128, 127)


def _output_thresholds(p: Dict[str, int], lo: int, hi: int) -> np.ndarray:
    """t[y + 128] = the least x in [lo, hi + 1] whose output is >= y, for y = -128..128 (t[0] = lo,
    t[256] = hi + 1), by bisection: the output stage is non-decreasing in x on the int32 sums it is used on."""
    ys = np.arange(-127, 128, dtype=np.int64)
    low, high = np.full(ys.shape, lo, np.int64), np.full(ys.shape, hi + 1, np.int64)
    while np.any(low < high):
        active = low < high
        mid = (low + high) >> 1
        ok = (_requantize_out(np.minimum(mid, hi), p) >= ys) & (mid <= hi)
        high = np.where(active & ok, mid, high)
        low = np.where(active & ~ok, mid + 1, low)
    return np.concatenate([[lo], low, [hi + 1]]).astype(np.int64)


def _allowed_intervals(a_values: Sequence[int], b_targets: Sequence[int], sign: int, p: Dict[str, int]):
    """For each q of the second operand: the int32 values B for which out(a_values[i] + sign * B) equals
    out(a_values[i] + sign * b_targets[q]) for every first operand i, as (lows, highs)."""
    a = np.asarray(a_values, np.int64)[:, None]
    b = np.asarray(b_targets, np.int64)[None, :]
    s = 31 - p["out_shift"]  # the output RESCALE's shift; its input must lie in [-2^(s-1), 2^(s-1))
    lo_x, hi_x = max(INT32_MIN, -(1 << (s - 1))), min(INT32_MAX, (1 << (s - 1)) - 1)
    t = _output_thresholds(p, lo_x, hi_x)
    y = _requantize_out(a + sign * b, p) + 128
    first, last = t[y], t[y + 1] - 1  # the sums x with the same output
    if sign > 0:  # a + B in [first, last]
        lows, highs = (first - a).max(axis=0), (last - a).min(axis=0)
    else:  # a - B in [first, last]
        lows, highs = (a - last).max(axis=0), (a - first).min(axis=0)
    lows, highs = np.maximum(lows, INT32_MIN), np.minimum(highs, INT32_MAX)
    return [int(v) for v in lows], [int(v) for v in highs]


def _stage_values(p: Dict[str, int], i: int, r: Optional[Rescale]) -> List[int]:
    """Operand i's int32 for every int8: its RESCALE's, or (chain) CMSIS-NN's own stage."""
    if r is None:
        return cmsis_operand_stage(p[f"input_{i}_offset"], abs(p[f"input_{i}_mult"]), p[f"input_{i}_shift"],
                                   p["left_shift"])  # fmt: skip
    return rescale_int8(r, -p[f"input_{i}_offset"])


def tosa_add_outputs(p: Dict[str, int], forms: Tuple[Optional[Rescale], Optional[Rescale]],
                     double_round: bool = True) -> np.ndarray:  # fmt: skip
    """The TOSA add's int8 output (before any activation CLAMP) for all 256 x 256 pairs [a + 128, b + 128], as
    TosaGraph.add builds it with these forms: stages, ADD (or SUB), RESCALE(out_mult, 31 - out_shift)."""
    a = np.asarray(_stage_values(p, 1, forms[0]), np.int64)[:, None]
    b = np.asarray(_stage_values(p, 2, forms[1]), np.int64)[None, :]
    x = a - b if p["input_2_mult"] < 0 else a + b
    if np.any(x < INT32_MIN) or np.any(x > INT32_MAX):
        raise ValueError("int32 sum overflows")
    s = 31 - p["out_shift"]
    if not (0 <= p["out_mult"] <= MULTIPLIER_MAX and SHIFT_MIN <= s <= SHIFT_MAX):
        raise ValueError("output scale has no RESCALE")
    if np.any(x < -(1 << (s - 1))) or np.any(x >= 1 << (s - 1)):
        raise ValueError("sum out of RESCALE's input range")
    rnd = np.int64(1 << (s - 1)) + (np.where(x >= 0, 1 << 30, -(1 << 30)) if double_round and s > 31 else 0)
    out = (x * p["out_mult"] + rnd) >> s  # |x| < 2^31 and out_mult < 2^31: no int64 overflow
    return np.clip(out + p["out_offset"], -128, 127)


def cmsis_add_outputs(p: Dict[str, int]) -> np.ndarray:
    """arm_elementwise_add_s8 (no activation) on all 256 x 256 pairs [a + 128, b + 128]."""
    from mcu_export.int8.reference.elementwise import arm_elementwise_add_s8

    q = np.arange(-128, 128, dtype=np.int8)
    a, b = np.meshgrid(q, q, indexing="ij")
    return arm_elementwise_add_s8(a, b, **p, out_activation_min=-128, out_activation_max=127).astype(np.int64)


def add_form(p: Dict[str, int], double_round: bool = True) -> Tuple[Optional[Rescale], Optional[Rescale]]:
    """The RESCALE for each operand of CMSIS-NN's add with parameters `p` (None: keep that operand's chain),
    verified: the TOSA add they build equals arm_elementwise_add_s8 on every input pair."""
    if p["input_1_mult"] < 0:
        raise ValueError("a negative first multiplier has no TOSA form here")
    stage = [(p[f"input_{i}_offset"], abs(p[f"input_{i}_mult"]), p[f"input_{i}_shift"]) for i in (1, 2)]
    forms = [operand_rescale(*s, p["left_shift"], double_round=double_round) for s in stage]
    # Vela's one-op add on the U55 wants one operand at exactly 2^19 and the other below it
    for i in (0, 1):
        other = 1 - i
        scaled = forms[i]
        if scaled is not None and scaled.is_unscaled():
            r = forms[other]
            if r is None or not r.below_unscaled():
                below = operand_rescale(*stage[other], p["left_shift"], double_round=double_round,
                                        below_unscaled=True)  # fmt: skip
                r = below or r
            if r is None:  # tier 2: exact on the whole add rather than on the operand
                r = _whole_add_rescale(p, i, scaled, double_round)
            forms[other] = r
            if r is not None:  # x 2^19 never rounds: give it the other's mode (Vela takes that one)
                forms[i] = unscaled(r.double_round)
            break
    try:
        if np.array_equal(tosa_add_outputs(p, (forms[0], forms[1]), double_round), cmsis_add_outputs(p)):
            return forms[0], forms[1]
    except ValueError:  # e.g. sums beyond the output RESCALE's input range (an output scale ~2^20 too small)
        pass
    return None, None  # the two-RESCALE chain on both operands, as before


def _whole_add_rescale(p: Dict[str, int], fixed: int, r_fixed: Rescale, double_round: bool) -> Optional[Rescale]:
    """Tier 2 for the operand other than `fixed` (0 or 1), the fixed one being `r_fixed`."""
    i = 2 - fixed  # the other operand's number in p
    offset, mult, shift = p[f"input_{i}_offset"], abs(p[f"input_{i}_mult"]), p[f"input_{i}_shift"]
    targets = cmsis_operand_stage(offset, mult, shift, p["left_shift"])
    fixed_values = rescale_int8(r_fixed, -p[f"input_{fixed + 1}_offset"])
    subtract = p["input_2_mult"] < 0
    if fixed == 0:  # out(A + sign * B)
        lows, highs = _allowed_intervals(fixed_values, targets, -1 if subtract else 1, p)
    else:  # out(A + sign * B) with B fixed: A's allowed values (A enters with sign +1)
        b_fixed = [-v for v in fixed_values] if subtract else fixed_values
        lows, highs = _allowed_intervals(b_fixed, targets, 1, p)
    ideal = mult * 2.0 ** (shift + p["left_shift"] - 31)
    for below in (True, False):
        r = solve(lows, highs, -offset, ideal=ideal, double_round=double_round, below_unscaled=below)
        if r is not None:
            return r
    return None
