"""Pieces the convolution-family references share: padding with the zero point, requantize-and-clamp."""

from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np

from mcu_export.int8.arith import requantize


def conv_output_size(size: int, kernel: int, stride: int, pad_before: int, pad_after: int, dilation: int = 1) -> int:
    """Output length of a convolution along one axis (pad_before/after in input elements)."""
    return (size + pad_before + pad_after - dilation * (kernel - 1) - 1) // stride + 1


def offset_padded(x: np.ndarray, input_offset: int, pad_hw: Tuple[int, int], need_hw: Tuple[int, int]) -> np.ndarray:
    """NHWC int8 -> int64 (x + input_offset), zero-padded top/left by pad_hw and bottom/right up to need_hw.
    A padded element is the input zero point, and zero point + input_offset == 0."""
    n, h, w, c = x.shape
    out = np.zeros((n, max(need_hw[0], pad_hw[0] + h), max(need_hw[1], pad_hw[1] + w), c), dtype=np.int64)
    out[:, pad_hw[0] : pad_hw[0] + h, pad_hw[1] : pad_hw[1] + w, :] = x.astype(np.int64) + input_offset
    return out


def requantize_clamp(
    acc: np.ndarray, multipliers: Sequence[int], shifts: Sequence[int], output_offset: int, activation: Tuple[int, int]
) -> np.ndarray:
    """Per-channel (last axis) arm_nn_requantize, + output_offset, clamp, int8."""
    out = requantize(acc, np.asarray(multipliers, np.int64), np.asarray(shifts, np.int64)) + output_offset
    return np.clip(out, activation[0], activation[1]).astype(np.int8)
