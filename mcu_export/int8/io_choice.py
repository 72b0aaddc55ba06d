"""The io argument of an export (float or int8 model inputs and outputs), checked before any work: this module
imports nothing heavy, so a bad command line is refused before torch loads (the lowering of int8 io:
mcu_export/int8/lower/io.py)."""

from __future__ import annotations

from typing import Optional

from mcu_export.errors import UsageError

IO_CHOICES = ("float", "int8")


LINEAR_WEIGHTS = ("per-channel", "per-tensor")


def check_linear_weights(linear_weights: str, quantize: Optional[str]) -> None:
    """The one check of the linear_weights argument: a known value, and per-tensor only for an int8 program."""
    if linear_weights not in LINEAR_WEIGHTS:
        raise UsageError(f"linear_weights must be 'per-channel' or 'per-tensor', got {linear_weights!r}")
    if linear_weights == "per-tensor" and quantize != "int8":
        raise UsageError(
            "linear_weights='per-tensor' (--linear-weights per-tensor) quantizes an int8 program: add "
            "quantize='int8' (--quantize int8)"
        )


def check_io(io: str, quantize: Optional[str]) -> None:
    """The one check of the io argument, before any work: a bad value or int8 io of a float program."""
    if io not in IO_CHOICES:
        raise UsageError(f"io must be 'float' or 'int8', got {io!r}")
    if io == "int8" and quantize != "int8":
        raise UsageError("io='int8' (--io int8) needs an int8 program: add quantize='int8' (--quantize int8)")
