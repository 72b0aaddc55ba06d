"""cortex_m::quantized_prelu: PReLU with one slope per channel on int8 (ours; CMSIS-NN has none).

out = clamp(output_zp + requantize(x - input_zp, m, s), -128, 127) with (m, s) the positive multiplier
(input_scale / output_scale) where x > input_zp and channel c's negative one (input_scale * slope_c /
output_scale, negative for a negative slope) elsewhere; `requantize` is arm_nn_requantize (arith.py). The
slopes stay float until they become these multipliers, so no weight is quantized."""

from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np

from mcu_export.int8.arith import quantize_multiplier, requantize


def signed_multiplier(real: float) -> Tuple[int, int]:
    """(multiplier, shift) of a real scale of either sign: the magnitude's, negated for a negative scale."""
    mult, shift = quantize_multiplier(abs(real))
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
    view = [1] * x.ndim
    view[channel_dim] = -1
    neg_m = np.asarray(negative_multipliers, np.int64).reshape(view)
    neg_s = np.asarray(negative_shifts, np.int64).reshape(view)
    neg_m, neg_s = np.broadcast_to(neg_m, x.shape), np.broadcast_to(neg_s, x.shape)
    pos = requantize(x, positive[0], positive[1])
    neg = requantize(x, neg_m, neg_s)
    return np.clip(np.where(x > 0, pos, neg) + output_zero_point, -128, 127).astype(np.int8)
