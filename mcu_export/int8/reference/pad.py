"""arm_pad_s8: constant padding of an NHWC int8 tensor."""

from __future__ import annotations

from typing import Sequence

import numpy as np


def arm_pad_s8(input: np.ndarray, pad_value: int, pre_pad: Sequence[int], post_pad: Sequence[int]) -> np.ndarray:
    """pre_pad/post_pad: (n, h, w, c) amounts added before and after each dimension."""
    x = np.asarray(input, dtype=np.int8)
    if x.ndim != 4:
        raise ValueError(f"arm_pad_s8 pads NHWC tensors, got {x.ndim} dimensions")
    return np.pad(x, list(zip(pre_pad, post_pad)), mode="constant", constant_values=np.int8(pad_value))
