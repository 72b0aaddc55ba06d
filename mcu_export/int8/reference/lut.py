"""arm_quantized_activation_s8 (ExecuTorch's cortex_m::quantized_activation: out = lut[in + 128]) and the
host-side builder of its 256-entry table for sigmoid, tanh and hardswish (or any float function)."""

from __future__ import annotations

from typing import Callable, Union

import numpy as np


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # exp(-x) overflows to inf for very negative x: sigmoid is then 0
        return (np.float32(1.0) / (np.float32(1.0) + np.exp(-x))).astype(np.float32)


def _hardswish(x: np.ndarray) -> np.ndarray:
    return (x * np.clip(x + 3.0, 0.0, 6.0) / 6.0).astype(np.float32)


FUNCTIONS = {"sigmoid": _sigmoid, "tanh": lambda x: np.tanh(x).astype(np.float32), "hardswish": _hardswish}


def build_lut(
    fn: Union[str, Callable[[np.ndarray], np.ndarray]], in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> np.ndarray:
    """int8[256] with entry i = quantize(fn(dequantize(i - 128))): the dequantize -> fp32 op -> quantize
    that PT2E's reference graph computes, in float32, rounding half to even as torch.round does."""
    if isinstance(fn, str):
        if fn not in FUNCTIONS:
            raise ValueError(f"no lookup table for '{fn}' (known: {', '.join(sorted(FUNCTIONS))})")
        fn = FUNCTIONS[fn]
    q = np.arange(-128, 128, dtype=np.int32)
    x = ((q - np.int32(in_zp)).astype(np.float32) * np.float32(in_scale)).astype(np.float32)
    y = np.asarray(fn(x), dtype=np.float32)
    out = np.round(y * np.float32(1.0 / out_scale)) + np.float32(out_zp)
    return np.clip(out, -128, 127).astype(np.int8)


def arm_quantized_activation_s8(input: np.ndarray, lut: np.ndarray) -> np.ndarray:
    table = np.asarray(lut, dtype=np.int8)
    if table.shape != (256,):
        raise ValueError(f"lookup table must hold 256 int8 entries, got shape {table.shape}")
    x = np.asarray(input, dtype=np.int8)
    return table[x.astype(np.int64) + 128]
