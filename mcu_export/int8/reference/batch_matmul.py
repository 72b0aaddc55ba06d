"""Bit-exact reference of arm_batch_matmul_s8 (CMSIS-NN v7), as cortex_m::quantized_batch_matmul calls it:

    out[b, m, n] = clamp(requantize(sum_k (lhs[b, m, k] + lhs_offset) * (rhs_t[b, n, k] + rhs_offset),
                                    multiplier, shift) + output_offset, -128, 127)

The right-hand matrix comes transposed (`rhs_t[b, n, k]`), so both operands are read as rows of K; the
offsets are minus the zero points (CMSIS-NN's convention), the multiplier and shift those of
lhs_scale * rhs_scale / out_scale."""

from __future__ import annotations

from typing import Tuple

import numpy as np

from mcu_export.int8.arith import quantize_multiplier, requantize


def batch_matmul_params(lhs_scale: float, rhs_scale: float, out_scale: float) -> Tuple[int, int]:
    """(multiplier, shift) of the int32 product sum into the output's scale."""
    return quantize_multiplier(lhs_scale * rhs_scale / out_scale)


def arm_batch_matmul_s8(
    lhs: np.ndarray,
    rhs_transposed: np.ndarray,
    *,
    lhs_offset: int,
    rhs_offset: int,
    output_offset: int,
    multiplier: int,
    shift: int,
) -> np.ndarray:
    """lhs [B, M, K] int8, rhs_transposed [B, N, K] int8 -> [B, M, N] int8 (2-D: one batch)."""
    flat = np.ndim(lhs) == 2
    a = np.asarray(lhs, np.int64).reshape((1,) * flat + np.shape(lhs)) + lhs_offset
    b = np.asarray(rhs_transposed, np.int64).reshape((1,) * flat + np.shape(rhs_transposed)) + rhs_offset
    acc = np.einsum("bmk,bnk->bmn", a, b)  # |acc| < K * 2^16: exact in int64, within int32 for K < 2^15
    out = requantize(acc, multiplier, shift) + output_offset
    out = np.clip(out, -128, 127).astype(np.int8)
    return out[0] if flat else out
