"""One mapping between the .pte's ScalarType codes, numpy dtypes and torch dtypes."""
from __future__ import annotations

import numpy as np
import torch

from mcu_export.pte.program import ScalarType

_TABLE = (
    (ScalarType.BYTE, np.uint8, torch.uint8),
    (ScalarType.CHAR, np.int8, torch.int8),
    (ScalarType.SHORT, np.int16, torch.int16),
    (ScalarType.INT, np.int32, torch.int32),
    (ScalarType.LONG, np.int64, torch.int64),
    (ScalarType.HALF, np.float16, torch.float16),
    (ScalarType.FLOAT, np.float32, torch.float32),
    (ScalarType.DOUBLE, np.float64, torch.float64),
    (ScalarType.BOOL, np.bool_, torch.bool),
)
_BY_CODE = {int(code): (np.dtype(npd), td) for code, npd, td in _TABLE}
_BY_TORCH = {td: code for code, _, td in _TABLE}
_BY_NUMPY = {np.dtype(npd): code for code, npd, _ in _TABLE}


def numpy_dtype(code: int) -> np.dtype:
    try:
        return _BY_CODE[int(code)][0]
    except KeyError:
        raise ValueError(f"scalar type {code} has no numpy equivalent") from None


def name(code: int) -> str:
    """Readable dtype name (numpy's), e.g. 'float32'; unknown codes read as 'scalar_type(N)'."""
    entry = _BY_CODE.get(int(code))
    return entry[0].name if entry else f"scalar_type({int(code)})"


def from_torch(dtype: torch.dtype) -> ScalarType:
    try:
        return _BY_TORCH[dtype]
    except KeyError:
        raise ValueError(f"torch dtype {dtype} is not supported") from None


def from_numpy(dtype) -> ScalarType:
    try:
        return _BY_NUMPY[np.dtype(dtype)]
    except KeyError:
        raise ValueError(f"numpy dtype {np.dtype(dtype)} is not supported") from None
