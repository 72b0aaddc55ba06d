"""Bit-exact reference of arm_convolve_s8 and the kernels arm_convolve_wrapper_s8 chooses among
(1x1, 1x1 fast, 1xN): they all compute the same thing.

    out[n, y, x, o] = clamp(requantize(bias[o] + sum_{ky, kx, i} (in[n, y*sh + ky*dh - ph, x*sw + kx*dw - pw,
                                                                       g*Ci + i] + input_offset) * w[o, ky, kx, i],
                                       multipliers[o], shifts[o]) + output_offset, act_min, act_max)

with taps outside the input contributing zero (the input is padded with its zero point), Ci = filter C and
g = o // (C_out / groups), groups = C_in / Ci."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

from mcu_export.int8.reference._common import offset_padded, requantize_clamp


def arm_convolve_s8(
    input: np.ndarray,
    filter: np.ndarray,
    bias: Optional[np.ndarray],
    *,
    input_offset: int,
    output_offset: int,
    multipliers: Sequence[int],
    shifts: Sequence[int],
    stride: Tuple[int, int] = (1, 1),
    padding: Tuple[int, int] = (0, 0),
    dilation: Tuple[int, int] = (1, 1),
    activation: Tuple[int, int] = (-128, 127),
    output_hw: Tuple[int, int],
) -> np.ndarray:
    """input NHWC int8, filter [C_out, KH, KW, Ci] int8, bias [C_out] int32 or None; tuples are (h, w);
    output_hw is the output's (H, W) as the kernel's output_dims give it. Returns NHWC int8."""
    n, _, _, c_in = input.shape
    c_out, kh, kw, kc = filter.shape
    groups = c_in // kc
    assert kc * groups == c_in and c_out % groups == 0, "filter channels must divide input channels"
    oh, ow = output_hw
    (sh, sw), (dh, dw) = stride, dilation
    need = ((oh - 1) * sh + (kh - 1) * dh + 1, (ow - 1) * sw + (kw - 1) * dw + 1)
    xp = offset_padded(input, input_offset, padding, need)
    w = filter.astype(np.int64)
    acc = np.zeros((n, oh, ow, c_out), dtype=np.int64)
    per_group = c_out // groups
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dh, kx * dw
            patch = xp[:, y0 : y0 + (oh - 1) * sh + 1 : sh, x0 : x0 + (ow - 1) * sw + 1 : sw, :]
            for g in range(groups):
                o = slice(g * per_group, (g + 1) * per_group)
                acc[..., o] += patch[..., g * kc : (g + 1) * kc] @ w[o, ky, kx, :].T
    if bias is not None:
        acc += np.asarray(bias, np.int64)
    return requantize_clamp(acc, multipliers, shifts, output_offset, activation)


arm_convolve_wrapper_s8 = arm_convolve_s8
arm_convolve_1x1_s8_fast = arm_convolve_s8
arm_convolve_1x1_s8 = arm_convolve_s8
arm_convolve_1_x_n_s8 = arm_convolve_s8
