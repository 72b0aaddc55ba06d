"""Nearest-neighbour upsampling of int8 (or any) NCHW values: torch's "nearest" index rule, element for element.

torch has no int8 kernel for it, so the source index of every output element is what torch's own float
operator computes when it upsamples a grid of element indices (exact in float32 below 2**24 elements per
plane); the values are then gathered from those indices. The C kernel (mx_k_aten_upsample_nearest2d_vec_out)
must move the same bytes.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

import numpy as np
import torch


def nearest_source_indices(
    height: int, width: int, output_size: Optional[Sequence[int]], scale_factors: Optional[Sequence[float]]
) -> np.ndarray:
    """[out_h, out_w] flat indices h * width + w into one input plane."""
    if height * width >= 1 << 24:
        raise ValueError(f"a {height}x{width} plane has indices float32 cannot hold exactly")
    grid = torch.arange(height * width, dtype=torch.float32).reshape(1, 1, height, width)
    size = list(output_size) if output_size is not None else None
    scales = list(scale_factors) if scale_factors is not None else None
    picked = torch.ops.aten.upsample_nearest2d.vec(grid, size, scales)
    return picked[0, 0].numpy().astype(np.int64)


def upsample_nearest2d(
    x: np.ndarray, output_size: Optional[Sequence[int]], scale_factors: Optional[Sequence[float]]
) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 4:
        raise ValueError(f"upsample_nearest2d takes NCHW input, got {x.ndim} dims")
    n, c, h, w = x.shape
    index = nearest_source_indices(h, w, output_size, scale_factors)
    return np.ascontiguousarray(x.reshape(n, c, h * w)[:, :, index])


def upsample_nearest2d_call(named: Dict[str, Any], out_sizes) -> np.ndarray:
    """The interpreter's entry: the kernel call's arguments by name."""
    out = upsample_nearest2d(named["input"], named["output_size"], named["scale_factors"])
    if list(out.shape) != list(out_sizes):
        raise ValueError(f"upsample_nearest2d gives {list(out.shape)}, the program planned {list(out_sizes)}")
    return out
