"""arm_elementwise_add_s8 and arm_elementwise_mul_s8, bit for bit. CMSIS-NN's functions take equal-length
vectors; the runtime kernels call them on runs of a broadcast (util/mx_cm_binary.h), which is elementwise
the same arithmetic, so these take any operands that broadcast (numpy's rules, as torch's)."""

from __future__ import annotations

from typing import Dict

import numpy as np

from mcu_export.int8.arith import quantize_multiplier, requantize, wrap_int32


def _i32(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.int8).astype(np.int64)


def arm_elementwise_add_s8(
    input_1: np.ndarray,
    input_2: np.ndarray,
    input_1_offset: int,
    input_1_mult: int,
    input_1_shift: int,
    input_2_offset: int,
    input_2_mult: int,
    input_2_shift: int,
    left_shift: int,
    out_offset: int,
    out_mult: int,
    out_shift: int,
    out_activation_min: int,
    out_activation_max: int,
) -> np.ndarray:
    a = requantize(wrap_int32((_i32(input_1) + input_1_offset) << left_shift), input_1_mult, input_1_shift)
    b = requantize(wrap_int32((_i32(input_2) + input_2_offset) << left_shift), input_2_mult, input_2_shift)
    out = requantize(wrap_int32(a + b), out_mult, out_shift) + out_offset
    return np.clip(out, out_activation_min, out_activation_max).astype(np.int8)


def arm_elementwise_mul_s8(
    input_1: np.ndarray,
    input_2: np.ndarray,
    input_1_offset: int,
    input_2_offset: int,
    out_offset: int,
    out_mult: int,
    out_shift: int,
    out_activation_min: int,
    out_activation_max: int,
) -> np.ndarray:
    prod = (_i32(input_1) + input_1_offset) * (_i32(input_2) + input_2_offset)
    out = requantize(prod, out_mult, out_shift) + out_offset
    return np.clip(out, out_activation_min, out_activation_max).astype(np.int8)


ADD_LEFT_SHIFT = 20  # TFLite's headroom for int8 ADD: (q - zp) << 20 keeps 8 bits plus ~11 of fraction


def add_params(scale_1: float, zp_1: int, scale_2: float, zp_2: int, out_scale: float, out_zp: int) -> Dict[str, int]:
    """The arm_elementwise_add_s8 parameters TFLite derives from the three (scale, zero point) pairs."""
    twice_max = 2.0 * max(scale_1, scale_2)
    m1, s1 = quantize_multiplier(scale_1 / twice_max)
    m2, s2 = quantize_multiplier(scale_2 / twice_max)
    mo, so = quantize_multiplier(twice_max / ((1 << ADD_LEFT_SHIFT) * out_scale))
    return dict(
        input_1_offset=-zp_1,
        input_1_mult=m1,
        input_1_shift=s1,
        input_2_offset=-zp_2,
        input_2_mult=m2,
        input_2_shift=s2,
        left_shift=ADD_LEFT_SHIFT,
        out_offset=out_zp,
        out_mult=mo,
        out_shift=so,
    )


def mul_params(scale_1: float, zp_1: int, scale_2: float, zp_2: int, out_scale: float, out_zp: int) -> Dict[str, int]:
    """The arm_elementwise_mul_s8 parameters TFLite derives from the three (scale, zero point) pairs."""
    mo, so = quantize_multiplier(scale_1 * scale_2 / out_scale)
    return dict(input_1_offset=-zp_1, input_2_offset=-zp_2, out_offset=out_zp, out_mult=mo, out_shift=so)
