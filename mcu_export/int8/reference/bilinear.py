"""Bilinear upsampling of int8 NCHW values sharing the input's scale and zero point: TOSA's RESIZE BILINEAR
(the integer form of torch's upsample_bilinear2d), with its RESCALE reduced to one exact rounding division.

Per axis, output o reads input position (o * d + offset) / n, exactly (TOSA's scale_n, scale_d, offset):
align_corners=False (torch's half-pixel source (o + 0.5) * in / out - 0.5) is n = 2 * out, d = 2 * in,
offset = in - out; align_corners=True (o * (in - 1) / (out - 1)) is n = out - 1, d = in - 1, offset = 0
(n = 1, d = 0 for one output). The three are divided by their gcd. Then i0 = floor(pos), frac = pos * n -
i0 * n in [0, n), the two taps i0 and i0 + 1 clamped into [0, in - 1] with integer weights n - frac and frac
(a position before the first element reads the first twice, as torch clamps it to 0).

    acc = sum over the 2 x 2 taps of q * weight_h * weight_w          (int32; the weights sum to n_h * n_w)
    out = floor((2 * acc + N) / (2 * N)),  N = n_h * n_w              (round half up)

Raw int8 values suffice: the weights sum to N, so the zero point passes through unchanged. The C kernel
(mx_k_cortex_m_quantized_upsample_bilinear2d_out) refuses N > 2**22, which keeps 2 * acc + N and its floor division in int32. Against
torch's float bilinear on the dequantized input the result is off by at most half a step (the rounding): the
positions and weights are exact.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Tuple

import numpy as np

MAX_WEIGHT = 1 << 22


def axis_scale(size_in: int, size_out: int, align_corners: bool) -> Tuple[int, int, int]:
    """(n, d, offset), reduced: output o reads input position (o * d + offset) / n."""
    if align_corners:
        n, d, off = (size_out - 1, size_in - 1, 0) if size_out > 1 else (1, 0, 0)
    else:
        n, d, off = 2 * size_out, 2 * size_in, size_in - size_out
    g = math.gcd(math.gcd(n, d), off)
    return n // g, d // g, off // g


def _taps(size_in: int, size_out: int, align_corners: bool):
    """(i0, i1, w0, w1, n) per output index along one axis."""
    n, d, off = axis_scale(size_in, size_out, align_corners)
    pos = np.arange(size_out, dtype=np.int64) * d + off
    i0 = pos // n
    frac = pos - i0 * n
    lo = np.clip(i0, 0, size_in - 1)
    hi = np.clip(i0 + 1, 0, size_in - 1)
    return lo, hi, n - frac, frac, n


def upsample_bilinear2d_s8(x: np.ndarray, output_hw: Tuple[int, int], align_corners: bool) -> np.ndarray:
    """x int8 [N, C, H, W] -> int8 [N, C, out_h, out_w]."""
    x = np.asarray(x)
    if x.ndim != 4:
        raise ValueError(f"bilinear upsampling takes NCHW input, got {x.ndim} dims")
    _, _, h, w = x.shape
    y0, y1, wy0, wy1, ny = _taps(h, output_hw[0], align_corners)
    x0, x1, wx0, wx1, nx = _taps(w, output_hw[1], align_corners)
    weight = ny * nx
    if weight > MAX_WEIGHT:
        raise ValueError(f"bilinear upsampling {h}x{w} -> {output_hw}: weights {weight} exceed {MAX_WEIGHT}")
    q = x.astype(np.int64)
    rows = q[:, :, y0, :] * wy0[:, None] + q[:, :, y1, :] * wy1[:, None]  # [N, C, out_h, W]
    acc = rows[:, :, :, x0] * wx0 + rows[:, :, :, x1] * wx1
    return ((2 * acc + weight) // (2 * weight)).astype(np.int8)


def upsample_bilinear2d_call(named: Dict[str, Any], out_sizes) -> np.ndarray:
    """The interpreter's entry: the kernel call's arguments by name, logical NCHW."""
    return upsample_bilinear2d_s8(named["input"], tuple(out_sizes[2:]), bool(named["align_corners"]))
