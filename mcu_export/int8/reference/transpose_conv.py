"""Bit-exact reference of arm_transpose_conv_s8 (CMSIS-NN's int8 transposed convolution, dilation 1):

    full[n, iy*sh + ky, ix*sw + kx, o] += sum_i (in[n, iy, ix, i] + input_offset) * w[o, ky, kx, i]
    out[n, y, x, o] = clamp(requantize(bias[o] + full[n, y + ph, x + pw, o], multipliers[o], shifts[o])
                            + output_offset, act_min, act_max)

for y, x below output_hw (padding crops the full output's top and left; output_padding only makes output_hw
larger). The int32 sums are exact, so the order Arm's rolling buffer adds them in does not matter."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

from mcu_export.int8.reference._common import requantize_clamp


def arm_transpose_conv_s8(
    input: np.ndarray,
    filter: np.ndarray,
    bias: Optional[np.ndarray],
    *,
    input_offset: int,
    output_offset: int,
    multipliers: Sequence[int],
    shifts: Sequence[int],
    stride: Tuple[int, int],
    padding: Tuple[int, int],
    activation: Tuple[int, int] = (-128, 127),
    output_hw: Tuple[int, int],
) -> np.ndarray:
    """input NHWC int8, filter [C_out, KH, KW, C_in] int8, bias [C_out] int32 or None; tuples are (h, w).
    Returns NHWC int8 of output_hw."""
    n, h, w, c_in = input.shape
    c_out, kh, kw, kc = filter.shape
    if kc != c_in:
        raise ValueError(f"transposed convolution filter has {kc} input channels, the input {c_in}")
    (sh, sw), (ph, pw), (oh, ow) = stride, padding, output_hw
    full_h = max((h - 1) * sh + kh, ph + oh)
    full_w = max((w - 1) * sw + kw, pw + ow)
    x = input.astype(np.int64) + input_offset
    wt = filter.astype(np.int64)
    full = np.zeros((n, full_h, full_w, c_out), dtype=np.int64)
    for ky in range(kh):
        for kx in range(kw):
            full[:, ky : ky + (h - 1) * sh + 1 : sh, kx : kx + (w - 1) * sw + 1 : sw, :] += x @ wt[:, ky, kx, :].T
    acc = full[:, ph : ph + oh, pw : pw + ow, :]
    if bias is not None:
        acc = acc + np.asarray(bias, np.int64)
    return requantize_clamp(acc, multipliers, shifts, output_offset, activation)
