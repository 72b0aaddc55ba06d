"""arm_max_pool_s8 and arm_avgpool_s8, bit for bit. Input NHWC; windows are clipped to the input, so
padding never takes part (max ignores it, average divides by the count of valid taps)."""

from __future__ import annotations

from typing import Tuple

import numpy as np


def _windows(
    in_hw: Tuple[int, int],
    out_hw: Tuple[int, int],
    kernel: Tuple[int, int],
    stride: Tuple[int, int],
    padding: Tuple[int, int],
):
    for oy in range(out_hw[0]):
        y0 = max(0, oy * stride[0] - padding[0])
        y1 = min(in_hw[0], oy * stride[0] - padding[0] + kernel[0])
        for ox in range(out_hw[1]):
            x0 = max(0, ox * stride[1] - padding[1])
            x1 = min(in_hw[1], ox * stride[1] - padding[1] + kernel[1])
            if y0 >= y1 or x0 >= x1:
                raise ValueError(f"pooling window at output ({oy}, {ox}) lies wholly in the padding")
            yield oy, ox, slice(y0, y1), slice(x0, x1)


def arm_max_pool_s8(
    input: np.ndarray,
    kernel: Tuple[int, int],
    stride: Tuple[int, int],
    padding: Tuple[int, int],
    out_hw: Tuple[int, int],
    activation_min: int = -128,
    activation_max: int = 127,
) -> np.ndarray:
    x = np.asarray(input, dtype=np.int8)
    n, h, w, c = x.shape
    out = np.empty((n, out_hw[0], out_hw[1], c), dtype=np.int8)
    for oy, ox, ys, xs in _windows((h, w), out_hw, kernel, stride, padding):
        out[:, oy, ox, :] = x[:, ys, xs, :].max(axis=(1, 2))
    return np.clip(out, activation_min, activation_max).astype(np.int8)


def arm_avgpool_s8(
    input: np.ndarray,
    kernel: Tuple[int, int],
    stride: Tuple[int, int],
    padding: Tuple[int, int],
    out_hw: Tuple[int, int],
    activation_min: int = -128,
    activation_max: int = 127,
) -> np.ndarray:
    x = np.asarray(input, dtype=np.int8).astype(np.int64)
    n, h, w, c = x.shape
    out = np.empty((n, out_hw[0], out_hw[1], c), dtype=np.int64)
    for oy, ox, ys, xs in _windows((h, w), out_hw, kernel, stride, padding):
        total = x[:, ys, xs, :].sum(axis=(1, 2))
        count = (ys.stop - ys.start) * (xs.stop - xs.start)
        half = count // 2
        # C's truncating division of the sum nudged by half the count away from zero: round half away.
        nudged = np.where(total > 0, total + half, total - half)
        out[:, oy, ox, :] = np.sign(nudged) * (np.abs(nudged) // count)
    return np.clip(out, activation_min, activation_max).astype(np.int8)


def pool_output_size(size: int, kernel: int, stride: int, padding: int, ceil_mode: bool = False) -> int:
    """torch's pooled length for symmetric padding (ceil_mode drops a last window that starts in padding)."""
    span = size + 2 * padding - kernel
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out
