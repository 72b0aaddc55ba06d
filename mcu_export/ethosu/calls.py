"""Kernel calls of a lowered program, read back by argument name: what the Ethos-U backend inspects.

The Ethos-U backend works on the cortex_m program, after the int8 rules have made every decision the CPU
path makes (layouts, requantization multipliers and shifts, folded activations, lookup tables). Reading
those calls back, rather than the graph, is what makes the CPU program the bit-exact reference of each NPU
subgraph: both compute from the same numbers.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np

from mcu_export import dtypes
from mcu_export.lower.args import split_call_args
from mcu_export.ops.table import BY_QUALIFIED
from mcu_export.pte import program as pte


@dataclass
class Call:
    position: int  # index in the instruction list
    op: str  # qualified name, "cortex_m::quantized_conv2d.out"
    args: Dict[str, int]  # schema name -> EValue index, out arguments excluded
    outs: List[int]

    @property
    def name(self) -> str:
        """ "quantized_conv2d" for "cortex_m::quantized_conv2d.out"."""
        return self.op.split("::", 1)[1].rsplit(".", 1)[0]


def read_calls(instructions: Sequence[pte.Instruction], operators: Sequence[pte.Operator]) -> List[Optional[Call]]:
    """One Call per KernelCall (None for other instructions), arguments named by the op table's schema."""
    calls: List[Optional[Call]] = []
    for position, instr in enumerate(instructions):
        if not isinstance(instr, pte.KernelCall):
            calls.append(None)
            continue
        op = operators[instr.op_index]
        qualified = f"{op.name}.{op.overload}"
        args, outs = split_call_args(BY_QUALIFIED[qualified].schema(), instr.args)
        calls.append(Call(position, qualified, args, outs))
    return calls


class Values:
    """Typed access to a method's values while it is being built (constants from the program's buffers)."""

    def __init__(self, values: Sequence[pte.EValue], constant_buffer: Sequence[bytes]):
        self.values = values
        self.constant_buffer = constant_buffer

    def tensor(self, index: int) -> pte.Tensor:
        value = self.values[index]
        if not isinstance(value, pte.Tensor):
            raise TypeError(f"value {index} is a {type(value).__name__}, not a tensor")
        return value

    def is_tensor(self, index: int) -> bool:
        return isinstance(self.values[index], pte.Tensor)

    def is_null(self, index: int) -> bool:
        return isinstance(self.values[index], pte.Null)

    def int(self, index: int) -> int:
        return self.values[index].int_val  # type: ignore[union-attr]

    def ints(self, index: builtins.int) -> List[builtins.int]:
        items: List[builtins.int] = self.values[index].items  # type: ignore[union-attr,assignment]
        return [self.values[i].int_val for i in items]  # type: ignore[union-attr]

    def items(self, index: builtins.int) -> List[builtins.int]:
        items: List[builtins.int] = self.values[index].items  # type: ignore[union-attr,assignment]
        return list(items)

    def is_constant(self, index: builtins.int) -> bool:
        value = self.values[index]
        return isinstance(value, pte.Tensor) and value.data_buffer_idx > 0

    def sizes(self, index: builtins.int) -> List[builtins.int]:
        return [int(s) for s in self.tensor(index).sizes]

    def physical(self, index: builtins.int) -> List[builtins.int]:
        """The sizes in memory order (NHWC for a channels-last NCHW tensor): the shape the NPU sees."""
        t = self.tensor(index)
        order = list(t.dim_order) if t.dim_order else list(range(len(t.sizes)))
        return [int(t.sizes[d]) for d in order]

    def dim_order(self, index: builtins.int) -> List[builtins.int]:
        t = self.tensor(index)
        return list(t.dim_order) if t.dim_order else list(range(len(t.sizes)))

    def dtype(self, index: builtins.int) -> str:
        return dtypes.name(self.tensor(index).scalar_type)

    def array(self, index: builtins.int) -> np.ndarray:
        """A constant's data in memory order (physical shape)."""
        t = self.tensor(index)
        raw = np.frombuffer(self.constant_buffer[t.data_buffer_idx], dtype=dtypes.numpy_dtype(t.scalar_type))
        physical = self.physical(index)
        return raw[: int(np.prod(physical, dtype=np.int64))].reshape(physical)
