"""arm_softmax_s8 bit for bit (TFLite's int8 softmax: gemmlowp fixed-point exp and reciprocal), and the
host-side parameters (mult, shift, diff_min) as TFLite's PreprocessSoftmaxScaling/CalculateInputRadius
compute them. Output quantization is fixed: scale 1/256, zero point -128."""

from __future__ import annotations

import math
from typing import Tuple

import numpy as np

from mcu_export.int8.arith import INT32_MAX, INT32_MIN, divide_by_power_of_two, quantize_multiplier, wrap_int32

SCALED_DIFF_INTEGER_BITS = 5  # differences from the row max live in Q5.26
ACCUM_BITS = 12  # the sum of exponentials lives in Q12.19
OUTPUT_SCALE, OUTPUT_ZERO_POINT = 1.0 / 256, -128
# Rows of at most this many values: their Q12.19 sum of exps (each up to 2^19) stays in int32
# (MX_CM_SOFTMAX_MAX_ROW, which the kernel's check enforces at load).
MAX_ROW = 4095

_EXP_BIT_FACTORS = (1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242)  # exp(-2^k/4), Q0.31


def doubling_high_mult(a, b) -> np.ndarray:
    """arm_nn_doubling_high_mult (gemmlowp SaturatingRoundingDoublingHighMul): round(a*b / 2^31) with ties
    toward +inf, saturating the single overflow INT32_MIN * INT32_MIN."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    out = (a * b + (1 << 30)) >> 31
    return np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, out)


def exp_on_negative_values(val) -> np.ndarray:
    """exp(val) for val <= 0 given in Q5.26, result in Q0.31."""
    val = np.asarray(val, dtype=np.int64)
    mod_minus_quarter = (val & ((1 << 24) - 1)) - (1 << 24)
    remainder = mod_minus_quarter - val
    x = mod_minus_quarter * 32 + (1 << 28)
    x2 = doubling_high_mult(x, x)
    x4_over_4 = divide_by_power_of_two(doubling_high_mult(x2, x2), 2)
    cubic = doubling_high_mult(wrap_int32(x4_over_4 + doubling_high_mult(x2, x)), 715827883)
    poly = wrap_int32(x + divide_by_power_of_two(wrap_int32(cubic + x2), 1))
    result = wrap_int32(1895147668 + doubling_high_mult(1895147668, poly))
    for k, factor in enumerate(_EXP_BIT_FACTORS):
        result = np.where(remainder & (1 << (24 + k)), doubling_high_mult(result, factor), result)
    return np.where(val == 0, INT32_MAX, result)


def _mult_by_power_of_two(val: int, exp: int) -> int:
    thresh = (1 << (31 - exp)) - 1
    if val > thresh:
        return INT32_MAX
    if val < -thresh:
        return INT32_MIN
    return val << exp


def one_over_one_plus_x(val: int) -> int:
    """1 / (1 + val) for val in [0, 1) in Q0.31 (three Newton-Raphson steps), result in Q0.31 (as Q1.30 * 2)."""
    total = val + INT32_MAX
    half_denominator = int(wrap_int32((total + 1) // 2 if total >= 0 else -((-total + 1) // 2)))
    x = int(wrap_int32(1515870810 + int(doubling_high_mult(half_denominator, -1010580540))))
    for _ in range(3):
        inner = int(wrap_int32((1 << 29) - int(doubling_high_mult(half_denominator, x))))
        x = int(wrap_int32(x + _mult_by_power_of_two(int(doubling_high_mult(x, inner)), 2)))
    return _mult_by_power_of_two(x, 1)


def arm_softmax_s8(input: np.ndarray, mult: int, shift: int, diff_min: int) -> np.ndarray:
    """Softmax over the last axis of an int8 array; returns int8 at scale 1/256, zero point -128."""
    x = np.asarray(input, dtype=np.int8)
    rows = x.reshape(-1, x.shape[-1]).astype(np.int64)
    out = np.empty(rows.shape, dtype=np.int8)
    for r, row in enumerate(rows):
        diff = row - row.max()
        valid = diff >= diff_min
        exps = exp_on_negative_values(doubling_high_mult(wrap_int32(diff * (1 << shift)), mult))
        total = int(divide_by_power_of_two(exps, ACCUM_BITS)[valid].sum())
        headroom = 32 - total.bit_length()
        bits_over_unit = ACCUM_BITS - headroom + 23
        shifted_scale = one_over_one_plus_x(((total << headroom) & 0xFFFFFFFF) - (1 << 31))
        res = divide_by_power_of_two(doubling_high_mult(shifted_scale, exps), bits_over_unit) - 128
        out[r] = np.where(valid, np.clip(res, -128, 127), -128)
    return out.reshape(x.shape)


def softmax_params(input_scale: float, beta: float = 1.0) -> Tuple[int, int, int]:
    """(mult, shift, diff_min) for arm_softmax_s8, as TFLite computes them: beta * input_scale in Q5.26 as a
    multiplier greater than one (left shift >= 0), and the most negative difference whose exp still counts."""
    real = min(beta * input_scale * (1 << (31 - SCALED_DIFF_INTEGER_BITS)), float((1 << 31) - 1))
    if real <= 1.0:
        raise ValueError(f"softmax input scale {input_scale} (beta {beta}) is too small for int8 softmax")
    mult, shift = quantize_multiplier(real)
    max_input_rescaled = (
        ((1 << SCALED_DIFF_INTEGER_BITS) - 1) * float(1 << (31 - SCALED_DIFF_INTEGER_BITS)) / float(1 << shift)
    )
    return mult, shift, -int(math.floor(max_input_rescaled))
