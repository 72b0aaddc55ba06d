"""arm_transpose_s8: output = input.transpose(perm) for 1 to 4 dimensions."""

from __future__ import annotations

from typing import Sequence

import numpy as np


def arm_transpose_s8(input: np.ndarray, perm: Sequence[int]) -> np.ndarray:
    x = np.asarray(input, dtype=np.int8)
    if not 1 <= x.ndim <= 4 or sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"transpose needs a permutation of 0..{x.ndim - 1} for 1 to 4 dims, got {list(perm)}")
    return np.ascontiguousarray(x.transpose(tuple(perm)))
