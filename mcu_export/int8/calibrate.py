"""Calibration: run the observed model on representative inputs, checking each batch against the
example inputs' shapes, and report ranges that came out degenerate."""

from __future__ import annotations

import warnings
from typing import Callable, Iterable, List, Optional, Sized, Tuple, Union

import torch

from mcu_export.errors import McuExportWarning, UsageError
from mcu_export.progress import Step

CalibrationSource = Union[None, Callable[[], Iterable], Iterable]

NOT_REPRESENTATIVE = (
    "int8 calibration used only the example inputs: the activation ranges are not "
    "representative of real data (pass calibrate= a function yielding input tuples)"
)


def _name(source) -> str:
    if callable(source):
        return (
            f"calibration function {getattr(source, '__qualname__', None) or getattr(source, '__name__', repr(source))}"
        )
    return "calibration data"


def _batches(source, example_inputs: tuple) -> Tuple[Iterable, str]:
    if source is None:
        return [example_inputs], "example inputs"
    name = _name(source)
    if callable(source):
        try:
            source = source()
        except Exception as exc:
            raise UsageError(
                f"{name} raised {type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
            ) from exc
    if isinstance(source, (torch.Tensor, str, bytes)) or not hasattr(source, "__iter__"):
        raise UsageError(f"{name} must yield input tuples, got {type(source).__name__}")
    return source, name


def _as_tuple(batch) -> tuple:
    if isinstance(batch, torch.Tensor):
        return (batch,)
    if isinstance(batch, list):
        return tuple(batch)
    return batch


def check_batch(batch, example_inputs: tuple, name: str, index: int) -> tuple:
    batch = _as_tuple(batch)
    if not isinstance(batch, tuple):
        raise UsageError(f"{name} yielded {type(batch).__name__} as batch {index}, expected a tuple of tensors")
    if len(batch) != len(example_inputs):
        raise UsageError(f"{name} yielded {len(batch)} inputs in batch {index}; the model takes {len(example_inputs)}")
    for i, (got, want) in enumerate(zip(batch, example_inputs)):
        if not isinstance(got, torch.Tensor):
            raise UsageError(f"{name}: input {i} of batch {index} is {type(got).__name__}, expected a torch.Tensor")
        if tuple(got.shape) != tuple(want.shape):
            raise UsageError(
                f"{name}: input {i} of batch {index} has shape {list(got.shape)}, the model takes {list(want.shape)}"
            )
        if got.dtype != want.dtype:
            raise UsageError(f"{name}: input {i} of batch {index} has dtype {got.dtype}, the model takes {want.dtype}")
    return batch


def degenerate_observers(model: torch.nn.Module) -> List[str]:
    """Names of observers whose calibrated range is a single value (an all-equal tensor, e.g. all zero).
    Their scale is the floor from qspecs, never 0."""
    found = []
    for name, module in model.named_modules():
        lo, hi = getattr(module, "min_val", None), getattr(module, "max_val", None)
        if not (isinstance(lo, torch.Tensor) and isinstance(hi, torch.Tensor)) or lo.numel() != 1:
            continue
        # Observers widen every range to include 0 when they compute a scale: only [0, 0] is empty.
        if torch.isfinite(lo).all() and float(lo) == 0.0 and float(hi) == 0.0:
            found.append(name)
    return found


def run_calibration(
    prepared: torch.nn.Module,
    example_inputs: tuple,
    source: CalibrationSource,
    say: Optional[Callable[[str], None]] = None,
) -> Tuple[int, List[str]]:
    """Feeds every batch through `prepared`; returns (batches, warning texts)."""
    say = say or (lambda _m: None)
    notes: List[str] = []
    if source is None:
        warnings.warn(NOT_REPRESENTATIVE, McuExportWarning, stacklevel=3)
        say(NOT_REPRESENTATIVE)
        notes.append(NOT_REPRESENTATIVE)
    batches, name = _batches(source, example_inputs)
    total = len(batches) if isinstance(batches, Sized) else None  # a generator's length is not known
    count = 0
    with torch.no_grad():
        for index, batch in enumerate(batches):
            prepared(*check_batch(batch, example_inputs, name, index))
            count += 1
            say(Step("calibrating", count, total))
    if count == 0:
        raise UsageError(f"{name} yielded no batches")
    flat = degenerate_observers(prepared)
    if flat:
        text = (
            f"int8 calibration: {len(flat)} tensor(s) had a single-valued range (e.g. all zero), "
            f"first {flat[0]}; their scale is floored (never 0)"
        )
        warnings.warn(text, McuExportWarning, stacklevel=3)
        say(text)
        notes.append(text)
    say(f"calibrated on {count} batch(es)")
    return count, notes


def load_calibration(spec: str) -> Callable[[], Iterable]:
    """The calibration function named by a `path/file.py:function` spec (the CLI's --calibrate)."""
    from mcu_export.model_spec import _import_file, parse_spec

    path, name = parse_spec(spec)
    if not path.is_file():
        raise UsageError(f"calibration file not found: {path}")
    fn = getattr(_import_file(path), name, None)
    if not callable(fn):
        raise UsageError(f"{path} has no calibration function '{name}'")
    return fn
