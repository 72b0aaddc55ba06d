"""CMSIS-NN's fixed-point requantization, in numpy, bit for bit (the default double-rounding build,
i.e. CMSIS_NN_USE_SINGLE_ROUNDING undefined). Every int8 reference kernel rescales through these.

All functions take and return int64 numpy arrays (or Python ints) holding int32 values, so that
intermediate products are exact; results are wrapped/saturated exactly where the C code does.
"""

from __future__ import annotations

import math
from typing import Tuple

import numpy as np

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def _i64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def wrap_int32(x) -> np.ndarray:
    """Two's-complement wrap to int32, as a C cast of a wider value does."""
    x = _i64(x)
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def doubling_high_mult_no_sat(m1, m2) -> np.ndarray:
    """arm_nn_doubling_high_mult_no_sat: (m1 * m2 + 2^30) >> 31, no saturation, no sign-dependent nudge."""
    m1, m2 = _i64(m1), _i64(m2)
    prod = m1 * m2 + (1 << 30)  # |m1*m2| < 2^62: exact in int64
    return wrap_int32(prod >> 31)


def divide_by_power_of_two(dividend, exponent) -> np.ndarray:
    """arm_nn_divide_by_power_of_two: arithmetic shift with round-half-away-from-zero."""
    dividend, exponent = _i64(dividend), _i64(exponent)
    mask = (np.int64(1) << exponent) - 1
    remainder = dividend & mask
    result = dividend >> exponent
    threshold = (mask >> 1) + (result < 0)
    return result + (remainder > threshold)


def requantize(val, multiplier, shift) -> np.ndarray:
    """arm_nn_requantize: val * multiplier * 2^shift / 2^31 with CMSIS-NN's double rounding.

    shift > 0 is a left shift applied before the high multiply (the product wraps to int32 as in C);
    shift <= 0 is a rounding right shift applied after it."""
    val, multiplier, shift = _i64(val), _i64(multiplier), _i64(shift)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    return divide_by_power_of_two(doubling_high_mult_no_sat(wrap_int32(val << left), multiplier), right)


def quantize_multiplier(real: float) -> Tuple[int, int]:
    """A real scale as (Q31 multiplier, shift) with real = multiplier * 2^(shift - 31), as TFLite/CMSIS-NN do.

    Zero maps to (0, 0). The multiplier lies in [2^30, 2^31 - 1]."""
    if real == 0.0:
        return 0, 0
    mantissa, exponent = math.frexp(real)  # real = mantissa * 2^exponent, mantissa in [0.5, 1)
    q = int(math.copysign(math.floor(abs(mantissa) * (1 << 31) + 0.5), mantissa))  # half away from zero
    if q == (1 << 31):  # rounding reached 1.0: renormalise
        q //= 2
        exponent += 1
    if exponent < -31:  # too small to represent: flush to zero
        return 0, 0
    return q, exponent
