"""arm_maximum_s8 and arm_minimum_s8, bit for bit: raw int8 values compared (operands and output share one
quantization), under broadcasting (the runtime kernels call them on runs of a broadcast)."""

from __future__ import annotations

import numpy as np


def arm_maximum_s8(input_1: np.ndarray, input_2: np.ndarray) -> np.ndarray:
    return np.maximum(np.asarray(input_1, np.int8), np.asarray(input_2, np.int8))


def arm_minimum_s8(input_1: np.ndarray, input_2: np.ndarray) -> np.ndarray:
    return np.minimum(np.asarray(input_1, np.int8), np.asarray(input_2, np.int8))
