"""cortex_m::quantized_div, bit for bit with ExecuTorch's kernel (CMSIS-NN has no division): the
zero-point-corrected quotient in float32 (0 where the divisor is at its zero point), times
output_scale = a_scale / (b_scale * out_scale) as a float32, rounded half away from zero, plus the
output zero point, clamped to int8. Operands broadcast."""

from __future__ import annotations

import numpy as np


def quantized_div_s8(a, a_zp: int, b, b_zp: int, out_zp: int, output_scale: float) -> np.ndarray:
    num = (np.asarray(a, np.int8).astype(np.int32) - a_zp).astype(np.float32)
    den = (np.asarray(b, np.int8).astype(np.int32) - b_zp).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        quotient = np.where(den != 0, num / np.where(den != 0, den, np.float32(1)), np.float32(0)).astype(np.float32)
    x = np.clip(quotient * np.float32(output_scale), np.float32(-1e6), np.float32(1e6)).astype(np.float32)
    whole = np.trunc(x)
    frac = x - whole
    rounded = whole + np.where(frac >= 0.5, np.float32(1), np.where(frac <= -0.5, np.float32(-1), np.float32(0)))
    return np.clip(rounded.astype(np.float32) + np.float32(out_zp), -128, 127).astype(np.int8)
