"""cortex_m::quantized_layer_norm: LayerNorm over the last dims in integers (ours; CMSIS-NN has none).

Per row of N int8 values x (the normalized dims flattened), with int16 weights w[N], int32 biases b[N]:

    sum   = sum_i x_i                                   (int32)
    d_i   = N * x_i - sum                               (int32: N * (x_i - mean), exact; the zero point cancels)
    V     = floor(sum_i d_i^2 / N) + epsilon            (int64; epsilon = round(eps * N^2 / in_scale^2))
    R     = isqrt(V * 2^16)                             (floor of the square root: sqrt(V) in Q8)
    inv   = floor(2^46 / R), 0 if R = 0                 (one division per row)
    n_i   = round_half_away(d_i * inv / 2^30)           (the normalized value (x_i - mean) / std in Q8)
    acc_i = sat_int32(n_i * w_i + b_i)
    out_i = clamp(requantize(acc_i, multiplier, shift) + output_zero_point, -128, 127)

since (x_i - mean) / sqrt(var + eps / in_scale^2) = d_i / sqrt(sum d^2 / N + eps N^2 / in_scale^2), and
d_i * 2^16 / R = d_i * (2^46 / R) / 2^30, where |d_i| <= sqrt(N (V + 1)) keeps |d_i * inv| below 2^46. The
exporter quantizes gamma symmetrically to int16 (w_i = round(gamma_i / w_scale), w_scale = max|gamma| /
32767), beta at the product's scale (b_i = round(beta_i * 2^8 / w_scale)), and (multiplier, shift) is
quantize_multiplier(w_scale / (2^8 * out_scale)); see `layer_norm_params`. The kernel refuses N > 2^14 and
epsilon >= 2^31, which keeps V * 2^16 within int64 (V <= 255^2 N^2 + 2^31)."""

from __future__ import annotations

import math
from typing import Any, Dict, Optional

import numpy as np

from mcu_export.int8.arith import INT32_MAX, INT32_MIN, quantize_multiplier, requantize

MAX_NORMALIZED = 1 << 14
MAX_EPSILON = (1 << 31) - 1  # the op table's "nonnegative" range, checked by the loader
NORM_BITS = 8  # n_i is Q8
INV_BITS = 46  # inv = 2^46 / R


def layer_norm_params(
    gamma: Optional[np.ndarray], beta: Optional[np.ndarray], n: int, eps: float, in_scale: float, out_scale: float
) -> Dict[str, Any]:
    """The kernel's constants for a LayerNorm of `n` values: int16 weight, int32 bias, epsilon, multiplier, shift."""
    g = np.ones(n, np.float64) if gamma is None else np.asarray(gamma, np.float64).reshape(-1)
    bt = np.zeros(n, np.float64) if beta is None else np.asarray(beta, np.float64).reshape(-1)
    top = float(np.abs(g).max()) if g.size else 0.0
    w_scale = top / 32767 if top > 0 else 1.0
    weight = np.clip(np.round(g / w_scale), -32767, 32767).astype(np.int16)
    bias = np.clip(np.round(bt * (1 << NORM_BITS) / w_scale), INT32_MIN, INT32_MAX).astype(np.int32)
    multiplier, shift = quantize_multiplier(w_scale / ((1 << NORM_BITS) * out_scale))
    epsilon = int(round(eps * n * n / (in_scale * in_scale)))
    return dict(weight=weight, bias=bias, epsilon=epsilon, multiplier=multiplier, shift=shift)


def _round_half_away_shift(num: np.ndarray, bits: int) -> np.ndarray:
    mag = (np.abs(num) + (1 << (bits - 1))) >> bits
    return np.where(num < 0, -mag, mag)


def quantized_layer_norm(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray,
    *,
    epsilon: int,
    output_zero_point: int,
    multiplier: int,
    shift: int,
) -> np.ndarray:
    """x int8 [..., *normalized] with weight.size normalized values per row -> int8 of x's shape."""
    x = np.asarray(x, np.int8)
    n = int(np.asarray(weight).size)
    rows = x.astype(np.int64).reshape(-1, n)
    w = np.asarray(weight, np.int64).reshape(-1)
    b = np.asarray(bias, np.int64).reshape(-1)
    total = rows.sum(axis=1, keepdims=True)
    d = n * rows - total
    v = (d * d).sum(axis=1) // n + int(epsilon)
    out = np.empty_like(rows)
    for r in range(rows.shape[0]):
        root = math.isqrt(int(v[r]) << (2 * NORM_BITS))
        inv = (1 << INV_BITS) // root if root > 0 else 0
        norm = _round_half_away_shift(d[r] * inv, INV_BITS - 2 * NORM_BITS)
        acc = np.clip(norm * w + b, INT32_MIN, INT32_MAX)
        out[r] = requantize(acc, multiplier, shift) + output_zero_point
    return np.clip(out, -128, 127).astype(np.int8).reshape(x.shape)
