"""Lifetimes of the planned tensors of one execution plan, in instruction indices.

A tensor lives from the instruction that first names it to the last one that does (a TensorList
argument names each of its members). Inputs are written before instruction 0 (first = -1) and outputs
are read after the last one (last = number of instructions). Intervals are inclusive at both ends: a
kernel's inputs and its out tensor are live at the same instruction and must not share memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence

from mcu_export.pte import program as pte

ALIGNMENT = pte.TENSOR_ALIGNMENT


@dataclass(frozen=True)
class Lifetime:
    value: int  # EValue index of the tensor
    size: int  # bytes, rounded up to ALIGNMENT
    first: int
    last: int

    def overlaps(self, other: "Lifetime") -> bool:
        return self.first <= other.last and other.first <= self.last


def aligned(nbytes: int, alignment: int = ALIGNMENT) -> int:
    return -(-nbytes // alignment) * alignment


def is_planned(value: pte.EValue) -> bool:
    return isinstance(value, pte.Tensor) and value.data_buffer_idx == 0


def tensors_named(values: Sequence[pte.EValue], index: int) -> List[int]:
    """The tensors an instruction argument names: itself, or a tensor list's members."""
    value = values[index]
    if isinstance(value, pte.Tensor):
        return [index]
    if isinstance(value, (pte.TensorList, pte.OptionalTensorList)):
        return [i for i in value.items if i >= 0]
    return []


def instruction_args(instr: pte.Instruction) -> List[int]:
    if isinstance(instr, (pte.KernelCall, pte.DelegateCall)):
        return list(instr.args)
    if isinstance(instr, pte.MoveCall):
        return [instr.move_from, instr.move_to]
    if isinstance(instr, pte.FreeCall):
        return [instr.value_index]
    if isinstance(instr, pte.JumpFalseCall):
        return [instr.cond_value_index]
    return []


def compute_lifetimes(plan: pte.ExecutionPlan) -> List[Lifetime]:
    instructions = [i for chain in plan.chains for i in chain.instructions]
    end = len(instructions)
    first: Dict[int, int] = {}
    last: Dict[int, int] = {}
    for index in plan.inputs:
        first[index] = last[index] = -1
    for step, instr in enumerate(instructions):
        for arg in instruction_args(instr):
            for t in tensors_named(plan.values, arg):
                first.setdefault(t, step)
                last[t] = step
    for index in plan.outputs:
        first.setdefault(index, end)
        last[index] = end
    return [
        Lifetime(v, aligned(plan.values[v].nbytes), first.get(v, -1), last.get(v, -1))
        for v, value in enumerate(plan.values)
        if is_planned(value)
    ]
