"""What a run feeds a program and gets back: tensor specs, the one input check, and the memory order
(a tensor's dim order) in which every target stores a tensor's bytes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from mcu_export import dtypes
from mcu_export.errors import RuntimeFailure, UsageError
from mcu_export.pte.program import Program, Tensor


@dataclass(frozen=True)
class TensorSpec:
    dtype: int  # .pte ScalarType code
    shape: Tuple[int, ...]
    dim_order: Tuple[int, ...] = ()

    @property
    def numpy_dtype(self) -> np.dtype:
        return dtypes.numpy_dtype(self.dtype)

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * self.numpy_dtype.itemsize

    @classmethod
    def of_manifest(cls, entry: Dict) -> "TensorSpec":
        """From an entry of a firmware project's model/model.json."""
        return cls(int(entry["dtype"]), tuple(entry["shape"]), tuple(entry["dim_order"]))


def program_io(program: Program, method: str = "forward") -> Tuple[Tuple[TensorSpec, ...], Tuple[TensorSpec, ...]]:
    """The input and output specs of a method, as the .pte declares them (tensors only)."""
    plan = program.method(method)

    def specs(indices: Sequence[int], what: str) -> Tuple[TensorSpec, ...]:
        out = []
        for i, v in enumerate(indices):
            t = plan.values[v]
            if not isinstance(t, Tensor):
                raise UsageError(f"{what} {i}: the model's {what} is not a tensor ({type(t).__name__})")
            out.append(TensorSpec(int(t.scalar_type), tuple(t.sizes), tuple(t.dim_order)))
        return tuple(out)

    return specs(plan.inputs, "input"), specs(plan.outputs, "output")


def check_inputs(
    arrays: Sequence[np.ndarray], specs: Sequence[TensorSpec], names: Optional[Sequence[str]] = None
) -> None:
    """One UsageError naming the first input whose count, shape or dtype differs from the model's."""
    if len(arrays) != len(specs):
        raise UsageError(f"the model takes {len(specs)} input(s), got {len(arrays)}")
    for i, (a, s) in enumerate(zip(arrays, specs)):
        if tuple(a.shape) != s.shape or a.dtype != s.numpy_dtype:
            name = f" ({names[i]})" if names else ""
            raise UsageError(
                f"input {i}{name}: got {a.dtype.name}{list(a.shape)}, the model expects "
                f"{s.numpy_dtype.name}{list(s.shape)}"
            )


def _permuted(order: Sequence[int]) -> bool:
    return bool(order) and list(order) != sorted(order)


def to_memory_order(array: np.ndarray, order: Sequence[int]) -> bytes:
    """Raw bytes in the tensor's dim order (contiguous for the identity order, e.g. NHWC for 0,2,3,1)."""
    if _permuted(order):
        array = np.transpose(array, order)
    return np.ascontiguousarray(array).tobytes()


def from_memory_order(data: bytes, spec: TensorSpec) -> np.ndarray:
    stored = tuple(spec.shape[d] for d in spec.dim_order) if spec.dim_order else spec.shape
    array = np.frombuffer(data, dtype=spec.numpy_dtype).reshape(stored)
    if _permuted(spec.dim_order):
        array = np.transpose(array, np.argsort(spec.dim_order))
    return np.ascontiguousarray(array)


def outputs_from(raw: Sequence[bytes], specs: Sequence[TensorSpec], where: str) -> List[np.ndarray]:
    """Arrays from the bytes a target handed back, after checking each has its output's size."""
    if len(raw) != len(specs):
        raise RuntimeFailure(f"{where} returned {len(raw)} output(s), the model has {len(specs)}")
    for i, (data, s) in enumerate(zip(raw, specs)):
        if len(data) != s.nbytes:
            raise RuntimeFailure(f"{where} returned {len(data)} bytes for output {i}, the output has {s.nbytes}")
    return [from_memory_order(data, s) for data, s in zip(raw, specs)]
