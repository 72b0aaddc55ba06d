"""cortex_m::quantized_prelu: PReLU with one slope per channel on int8 (ours; CMSIS-NN has none).

out = clamp(output_zp + requantize((x - input_zp) * 2^20, m, s), -128, 127) with (m, s) the positive
multiplier (of input_scale / output_scale / 2^20) where x > input_zp and channel c's negative one (of
input_scale * slope_c / output_scale / 2^20, negative for a negative slope) elsewhere; `requantize` is
arm_nn_requantize (arith.py). The 2^20 (TFLite's left shift for add) keeps its double rounding exact on
the small differences x - input_zp: rescaled unshifted, |x - zp| < 256 would be rounded to an integer
before the final shift, one step off in a quarter of the cases. The slopes stay float until they become
these multipliers, so no weight is quantized."""

from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np

from mcu_export.int8.arith import quantize_multiplier, requantize

INPUT_LEFT_SHIFT = 20


def prelu_multiplier(real: float) -> Tuple[int, int]:
    """(multiplier, shift) of real / 2^20 for a real scale of either sign: the magnitude's, negated for a
    negative scale; (0, 0) when it is below the kernel's shift range (|real| < 2^-12: every output 0)."""
    mult, shift = quantize_multiplier(abs(real) / (1 << INPUT_LEFT_SHIFT))
    if shift < -31:
        return 0, 0
    return (-mult if real < 0 else mult), shift


def quantized_prelu(
    input: np.ndarray,
    channel_dim: int,
    input_zero_point: int,
    output_zero_point: int,
    positive: Tuple[int, int],
    negative_multipliers: Sequence[int],
    negative_shifts: Sequence[int],
) -> np.ndarray:
    """`input` logical int8; channel_dim its (logical) channel axis; returns int8 of the same shape."""
    x = np.asarray(input, dtype=np.int8).astype(np.int64) - input_zero_point
    shifted = x << INPUT_LEFT_SHIFT
    view = [1] * x.ndim
    view[channel_dim] = -1
    neg_m = np.asarray(negative_multipliers, np.int64).reshape(view)
    neg_s = np.asarray(negative_shifts, np.int64).reshape(view)
    neg_m, neg_s = np.broadcast_to(neg_m, x.shape), np.broadcast_to(neg_s, x.shape)
    pos = requantize(shifted, positive[0], positive[1])
    neg = requantize(shifted, neg_m, neg_s)
    return np.clip(np.where(x > 0, pos, neg) + output_zero_point, -128, 127).astype(np.int8)
