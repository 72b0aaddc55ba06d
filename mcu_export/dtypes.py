"""The .pte's scalar types as numpy and torch dtypes, from the one table in `mcu_export.pte.program.DTYPES`.

torch is imported on the first torch conversion only: `mcu-export run|inspect|boards|ops` read .pte types
without it (issue 16: those commands start without torch's 2 s import)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Dict

import numpy as np

from mcu_export.pte.program import DTYPE_OF, DTYPES, ScalarType

if TYPE_CHECKING:
    import torch

# numpy only for the types the C runtime handles: those are the ones whose bytes cross to it.
_NUMPY = {d.code: np.dtype(d.name) for d in DTYPES if d.runtime}
_BY_NUMPY = {npd: code for code, npd in _NUMPY.items()}


@functools.lru_cache(maxsize=None)
def _torch_table() -> Dict[ScalarType, "torch.dtype"]:
    import torch

    return {d.code: getattr(torch, d.name) for d in DTYPES if isinstance(getattr(torch, d.name, None), torch.dtype)}


def _code(code: int):
    try:
        return ScalarType(int(code))
    except ValueError:
        raise ValueError(f"scalar type {int(code)} is not in the .pte schema") from None


def numpy_dtype(code: int) -> np.dtype:
    found = _NUMPY.get(_code(code))
    if found is None:
        raise ValueError(f"scalar type {int(code)} ({name(code)}) has no numpy equivalent")
    return found


def torch_dtype(code: int) -> "torch.dtype":
    found = _torch_table().get(_code(code))
    if found is None:
        raise ValueError(f"scalar type {int(code)} ({name(code)}) has no torch equivalent")
    return found


def name(code: int) -> str:
    """Readable dtype name (torch's), e.g. 'float32'; unknown codes read as 'scalar_type(N)'."""
    try:
        return DTYPE_OF[ScalarType(int(code))].name
    except ValueError:
        return f"scalar_type({int(code)})"


def short_name(code: int) -> str:
    """The short form `mcu-export inspect` prints, e.g. 'f32'."""
    try:
        return DTYPE_OF[ScalarType(int(code))].short
    except ValueError:
        return f"st{int(code)}"


def from_torch(dtype: "torch.dtype") -> ScalarType:
    for code, known in _torch_table().items():
        if known == dtype:
            return code
    raise ValueError(f"torch dtype {dtype} has no .pte scalar type")


def from_numpy(dtype) -> ScalarType:
    try:
        return _BY_NUMPY[np.dtype(dtype)]
    except KeyError:
        raise ValueError(f"numpy dtype {np.dtype(dtype)} is not supported") from None
