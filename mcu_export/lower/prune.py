"""Drops the values and constant buffers no instruction, list or method edge refers to any more.

A backend that rewrites the program after the walk (cortex_m folding a flatten into a linear, Ethos-U
replacing kernel calls by one delegate call whose weights travel in its blob) leaves tensors behind that
nothing reads: planned ones would still take arena bytes, constant ones flash.
"""

from __future__ import annotations

from typing import Dict, List, Sequence

from mcu_export.planner.lifetimes import instruction_args
from mcu_export.pte import program as pte


def _refs(value: pte.EValue) -> List[int]:
    if isinstance(value, (pte.TensorList, pte.IntList)):
        return list(value.items)
    if isinstance(value, pte.OptionalTensorList):
        return [i for i in value.items if i >= 0]
    return []


def prune(
    program: pte.Program, values: List[pte.EValue], instructions: Sequence[pte.Instruction], edges: Sequence[int]
) -> Dict[int, int]:
    """Removes unreferenced entries of `values` (in place) and of the program's constant buffers; renumbers
    every reference in `instructions`, the lists and tensors. Returns old -> new value index; `edges` are
    the method's inputs and outputs, always kept."""
    live = set(edges)
    stack = [i for instr in instructions for i in instruction_args(instr)] + list(edges)
    while stack:
        index = stack.pop()
        live.add(index)
        stack.extend(i for i in _refs(values[index]) if i not in live)
    kept = [i for i in range(len(values)) if i in live]
    remap = {old: new for new, old in enumerate(kept)}
    if len(kept) == len(values):
        return remap
    tensors = [v for v in (values[i] for i in kept) if isinstance(v, pte.Tensor)]
    buffers = sorted({t.data_buffer_idx for t in tensors} - {0})
    new_buffer = {old: new for new, old in enumerate([0, *buffers])}
    program.constant_buffer[:] = [program.constant_buffer[i] for i in [0, *buffers]]
    values[:] = [values[i] for i in kept]
    for value in values:
        if isinstance(value, pte.Tensor):
            value.data_buffer_idx = new_buffer[value.data_buffer_idx]
        elif isinstance(value, (pte.TensorList, pte.IntList)):
            value.items = [remap[i] for i in value.items]
        elif isinstance(value, pte.OptionalTensorList):
            value.items = [remap[i] if i >= 0 else i for i in value.items]
    for instr in instructions:
        if isinstance(instr, (pte.KernelCall, pte.DelegateCall)):
            instr.args = [remap[i] for i in instr.args]
        elif isinstance(instr, pte.MoveCall):
            instr.move_from, instr.move_to = remap[instr.move_from], remap[instr.move_to]
        elif isinstance(instr, pte.FreeCall):
            instr.value_index = remap[instr.value_index]
        elif isinstance(instr, pte.JumpFalseCall):
            instr.cond_value_index = remap[instr.cond_value_index]
    return remap
