"""Bit-exact reference of arm_depthwise_conv_s8 (and the 3x3 / opt kernels and the wrapper, which compute
the same thing). Output channel o reads input channel o // ch_mult:

    out[n, y, x, o] = clamp(requantize(bias[o] + sum_{ky, kx} (in[n, y*sh + ky*dh - ph, x*sw + kx*dw - pw,
                                                                   o // ch_mult] + input_offset) * w[0, ky, kx, o],
                                       multipliers[o], shifts[o]) + output_offset, act_min, act_max)"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

from mcu_export.int8.reference._common import offset_padded, requantize_clamp


def arm_depthwise_conv_s8(
    input: np.ndarray,
    filter: np.ndarray,
    bias: Optional[np.ndarray],
    *,
    ch_mult: int,
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
    """input NHWC int8, filter [1, KH, KW, C_in * ch_mult] int8, bias [C_out] int32 or None."""
    n, _, _, c_in = input.shape
    _, kh, kw, c_out = filter.shape
    assert c_out == c_in * ch_mult
    oh, ow = output_hw
    (sh, sw), (dh, dw) = stride, dilation
    need = ((oh - 1) * sh + (kh - 1) * dh + 1, (ow - 1) * sw + (kw - 1) * dw + 1)
    xp = np.repeat(offset_padded(input, input_offset, padding, need), ch_mult, axis=3)  # channel o = i*mult + m
    w = filter.astype(np.int64)[0]
    acc = np.zeros((n, oh, ow, c_out), dtype=np.int64)
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dh, kx * dw
            acc += xp[:, y0 : y0 + (oh - 1) * sh + 1 : sh, x0 : x0 + (ow - 1) * sw + 1 : sw, :] * w[ky, kx]
    if bias is not None:
        acc += np.asarray(bias, np.int64)
    return requantize_clamp(acc, multipliers, shifts, output_offset, activation)


arm_depthwise_conv_wrapper_s8 = arm_depthwise_conv_s8
arm_depthwise_conv_3x3_s8 = arm_depthwise_conv_s8
arm_depthwise_conv_s8_opt = arm_depthwise_conv_s8
