"""Bit-exact reference of arm_fully_connected_s8 (per-tensor requantization), arm_fully_connected_per_channel_s8
(multipliers[o], shifts[o] per output channel) and arm_vector_sum_s8.

    out[b, o] = clamp(requantize(bias[o] + sum_i (in[b, i] + input_offset) * (w[o, i] + filter_offset),
                                 multiplier, shift) + output_offset, act_min, act_max)"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

from mcu_export.int8.arith import requantize, wrap_int32


def arm_fully_connected_s8(
    input: np.ndarray,
    filter: np.ndarray,
    bias: Optional[np.ndarray],
    *,
    input_offset: int,
    filter_offset: int,
    output_offset: int,
    multiplier: int,
    shift: int,
    activation: Tuple[int, int] = (-128, 127),
) -> np.ndarray:
    """input [N, C_in] int8, filter [C_out, C_in] int8, bias [C_out] int32 or None -> [N, C_out] int8."""
    acc = (input.astype(np.int64) + input_offset) @ (filter.astype(np.int64) + filter_offset).T
    if bias is not None:
        acc = acc + np.asarray(bias, np.int64)
    out = requantize(acc, multiplier, shift) + output_offset
    return np.clip(out, activation[0], activation[1]).astype(np.int8)


def arm_fully_connected_per_channel_s8(
    input: np.ndarray,
    filter: np.ndarray,
    bias: Optional[np.ndarray],
    *,
    input_offset: int,
    filter_offset: int,
    output_offset: int,
    multipliers: Sequence[int],
    shifts: Sequence[int],
    activation: Tuple[int, int] = (-128, 127),
) -> np.ndarray:
    """As arm_fully_connected_s8 with one (multiplier, shift) per output channel: the same as running each
    filter row through arm_fully_connected_s8 with its own scale."""
    acc = (input.astype(np.int64) + input_offset) @ (filter.astype(np.int64) + filter_offset).T
    if bias is not None:
        acc = acc + np.asarray(bias, np.int64)
    out = requantize(acc, np.asarray(multipliers, np.int64), np.asarray(shifts, np.int64)) + output_offset
    return np.clip(out, activation[0], activation[1]).astype(np.int8)


def arm_vector_sum_s8(filter: np.ndarray, lhs_offset: int, rhs_offset: int, bias: Optional[np.ndarray]) -> np.ndarray:
    """Per row: lhs_offset * sum(row + rhs_offset) + bias, as int32 (the MVE kernel's ctx buffer)."""
    sums = lhs_offset * (filter.astype(np.int64) + rhs_offset).sum(axis=1)
    if bias is not None:
        sums = sums + np.asarray(bias, np.int64)
    return wrap_int32(sums).astype(np.int32)
