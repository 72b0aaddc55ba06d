"""The runner interface every target implements: open a program (learn its inputs and outputs), prepare
it (build what the target needs), execute one inference on raw tensor bytes.

`Runner.run` does the rest once for every target: checks the inputs, converts them to and from memory
order, and wraps the target's measurements in a `ModelRun`. A new target is one subclass with a `name`
in a module of this package (mcu_export.runners finds it); boards pick targets by `serves`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Dict, List, Optional, Sequence, Tuple, Type

if TYPE_CHECKING:  # numpy and the tensor helpers load on first use: listing targets must not cost their import
    import numpy as np

    from mcu_export.runners.tensors import Quantization, TensorSpec


@dataclass
class OpCount:
    index: int  # instruction index in the method's chain
    op: str  # qualified operator name, e.g. aten::convolution.out
    instructions: Optional[int]
    source: Optional[str] = None  # "model.py:42 in Net.forward" (mcu_export.pte.debug_map), when known


@dataclass
class NpuCycles:
    """One delegate call's NPU job as counted on the NPU: its PMU cycle counter (boards/ethosu/ethosu_pmu.c)."""

    delegate: int  # the delegate's index in the program (model.json's delegate_calls)
    instruction: int  # the DelegateCall's instruction index
    cycles: int
    source: str = "PMU"


@dataclass
class ModelRun:
    """One inference on one target: the outputs (logical layout) and what the target could measure."""

    outputs: List[np.ndarray]
    board: str
    target: str  # the runner's name: host, qemu, fvp, ...
    seconds: float  # wall time of the target's run
    per_op: List[OpCount] = field(default_factory=list)
    instructions_per_inference: Optional[int] = None  # guest instructions inside mx_method_execute
    total_instructions: Optional[int] = None  # whole run: boot, I/O and inference
    instructions_per_load: Optional[int] = None  # guest instructions inside mx_method_load (validating the program)
    ticks: Optional[int] = None  # SysTick ticks of the inference (deterministic under -icount)
    stack_used: Optional[int] = None  # bytes, high-water mark of the painted stack
    meta_pool_bytes: Optional[int] = None  # metadata pool the runtime needed (== the one generated)
    npu_measured: List[NpuCycles] = field(default_factory=list)  # per NPU job, where a PMU counted (FVP, silicon)
    uart_text: str = ""
    # An int8 output of an io="int8" export: its quantization and its float32 value ((q - zero_point) * scale).
    output_quantization: List[Quantization] = field(default_factory=list)
    dequantized: List[Optional[np.ndarray]] = field(default_factory=list)


class Runner(ABC):
    name: ClassVar[str] = ""  # empty for abstract families (e.g. firmware on a simulator)
    rank: ClassVar[int] = 100  # a board's default target is the lowest-ranked one serving it
    by_default: ClassVar[bool] = True  # False: only when asked for by name (e.g. it needs a port)
    targets: ClassVar[Dict[str, Type["Runner"]]] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            Runner.targets[cls.name] = cls

    def __init__(self, board, *, timeout: float = 60.0, profile: bool = True):
        """profile: collect per-op counts when the target can (costs run time on some)."""
        self.board = board
        self.timeout = timeout
        self.profile = profile
        self.inputs: Tuple[TensorSpec, ...] = ()
        self.outputs: Tuple[TensorSpec, ...] = ()
        # io="int8" exports: each int8 edge's quantization from report.json (use_quantization), else empty
        self.input_quantization: List[Quantization] = []
        self.output_quantization: List[Quantization] = []

    @property
    def where(self) -> str:
        return f"{self.board.name} ({self.name})"

    @classmethod
    @abstractmethod
    def serves(cls, board) -> bool:
        """Whether this target can run programs for `board` (from the board's data only)."""

    @abstractmethod
    def open(self, program: Path) -> None:
        """Take the program to run (an export folder, or for some targets a .pte) and learn its I/O specs;
        cheap, so that bad inputs fail before any build."""

    def prepare(self) -> None:
        """Build or load what execute needs; called by run, once per program."""

    @abstractmethod
    def execute(self, inputs: Sequence[bytes]) -> Tuple[List[bytes], Dict[str, Any]]:
        """One inference on inputs in memory order; returns the outputs' bytes and ModelRun fields
        (seconds, and whatever else the target measures)."""

    def use_quantization(self, source) -> None:
        """Take the int8 edges' quantization from an export (a folder or its .pte: its report.json) or from a
        report dict: float32 inputs given for them are then quantized, and their outputs also dequantized."""
        from mcu_export.runners.tensors import io_quantization, report_quantization

        found = io_quantization(source) if isinstance(source, dict) else report_quantization(source)
        self.input_quantization, self.output_quantization = found

    def record(self, run: ModelRun) -> None:
        """Keep what a run measured beside the program (e.g. in report.json); nothing by default."""

    def run(self, arrays: Sequence[np.ndarray], names: Optional[Sequence[str]] = None) -> ModelRun:
        import numpy as np

        from mcu_export.runners.tensors import (
            check_inputs,
            dequantize_outputs,
            outputs_from,
            quantize_inputs,
            to_memory_order,
        )

        arrays = quantize_inputs([np.asarray(a) for a in arrays], self.inputs, self.input_quantization)
        check_inputs(arrays, self.inputs, names, self.input_quantization)
        self.prepare()
        raw, measured = self.execute([to_memory_order(a, s.dim_order) for a, s in zip(arrays, self.inputs)])
        outputs = outputs_from(raw, self.outputs, self.where)
        quantization = list(self.output_quantization[: len(outputs)])
        return ModelRun(
            outputs=outputs,
            board=self.board.name,
            target=self.name,
            output_quantization=quantization,
            dequantized=dequantize_outputs(outputs, quantization),
            **measured,
        )
