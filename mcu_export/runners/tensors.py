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
    arrays: Sequence[np.ndarray],
    specs: Sequence[TensorSpec],
    names: Optional[Sequence[str]] = None,
    quantization: Sequence[Optional[Dict]] = (),
) -> None:
    """One UsageError naming the first input whose count, shape or dtype differs from the model's."""
    if len(arrays) != len(specs):
        raise UsageError(f"the model takes {len(specs)} input(s), got {len(arrays)}")
    for i, (a, s) in enumerate(zip(arrays, specs)):
        if tuple(a.shape) != s.shape or a.dtype != s.numpy_dtype:
            name = f" ({names[i]})" if names else ""
            quantized = i < len(quantization) and quantization[i] is not None
            also = f" (or float32{list(s.shape)}, quantized on the way in)" if quantized else ""
            raise UsageError(
                f"input {i}{name}: got {a.dtype.name}{list(a.shape)}, the model expects "
                f"{s.numpy_dtype.name}{list(s.shape)}{also}"
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


# ---- int8 edges (an export with io="int8"): report.json's inputs[k].quantization / outputs[k].quantization ----
Quantization = Optional[Dict]  # {"scale", "zero_point", "quant_min", "quant_max"}, or None for a plain edge


def quantize(array: np.ndarray, q: Dict) -> np.ndarray:
    """float32 → int8 as the program's dropped cortex_m::quantize_per_tensor computes it (its C kernel and
    the int8 interpreter): clamp(round_half_even(x * float32(1 / scale)) + zero_point) in float32, NaN → zero
    point. So a program with int8 inputs gets the bytes its float-io twin would have made, bit for bit."""
    x = np.asarray(array, dtype=np.float32)
    inv, zp = np.float32(1.0 / float(q["scale"])), np.float32(q["zero_point"])
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.rint(x * inv) + zp
    v = np.where(np.isnan(v), zp, v)
    return np.clip(v, q.get("quant_min", -128), q.get("quant_max", 127)).astype(np.int8)


def dequantize(array: np.ndarray, q: Dict) -> np.ndarray:
    """int8 → float32 as cortex_m::dequantize_per_tensor computes it: (float32(q) - zero_point) * float32(scale),
    the float output the program's float-io twin returns, bit for bit."""
    return (np.asarray(array).astype(np.float32) - np.float32(q["zero_point"])) * np.float32(q["scale"])


def quantize_inputs(
    arrays: Sequence[np.ndarray], specs: Sequence[TensorSpec], quantization: Sequence[Quantization]
) -> List[np.ndarray]:
    """Each float32 array given for an int8 input with a known quantization, quantized (`quantize`); every
    other array as it is (an int8 array passes through; check_inputs judges the rest)."""
    out = list(arrays)
    for k, (a, s) in enumerate(zip(arrays, specs)):
        q = quantization[k] if k < len(quantization) else None
        if q is not None and a.dtype == np.float32 and s.numpy_dtype == np.int8 and tuple(a.shape) == s.shape:
            out[k] = quantize(a, q)
    return out


def dequantize_outputs(
    outputs: Sequence[np.ndarray], quantization: Sequence[Quantization]
) -> List[Optional[np.ndarray]]:
    """Per output, its float32 value when it is an int8 output with a known quantization, else None."""
    out: List[Optional[np.ndarray]] = []
    for k, o in enumerate(outputs):
        q = quantization[k] if k < len(quantization) else None
        out.append(None if q is None else dequantize(o, q))
    return out


def report_quantization(program) -> Tuple[List[Quantization], List[Quantization]]:
    """The inputs' and outputs' quantization from the report.json of an export folder (or beside a .pte, when
    it is that program's: same size); empty lists when there is none (a bare .pte, an fp32 or float-io export)."""
    import json
    from pathlib import Path

    path = Path(program)
    pte = path / "model.pte" if path.is_dir() else path
    try:
        data = json.loads(pte.with_name("report.json").read_text())
        if data.get("pte_bytes") != pte.stat().st_size:
            return [], []  # the report of another program
    except (OSError, ValueError, AttributeError):
        return [], []
    return io_quantization(data)


def io_quantization(report: Dict) -> Tuple[List[Quantization], List[Quantization]]:
    """(inputs, outputs) quantization of a report.json's dict."""

    def of(entries) -> List[Quantization]:
        return [e.get("quantization") if isinstance(e, dict) else None for e in entries or []]

    return of(report.get("inputs")), of(report.get("outputs"))
