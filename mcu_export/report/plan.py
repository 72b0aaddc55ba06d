"""The memory plan of a program as its .pte holds it: each planned tensor's arena, offset, size, and first and
last instruction. The report's timeline (and `--chart`'s) draws it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Union

from mcu_export.errors import UsageError


@dataclass(frozen=True)
class TensorSpan:
    value: int  # EValue index
    arena: int  # memory id
    offset: int
    size: int  # planned (aligned) bytes
    first: int  # first instruction that uses it (-1: a model input, written before instruction 0)
    last: int  # last one (== instructions: a model output, read after the last instruction)


@dataclass
class MemoryPlan:
    instructions: int
    tensors: List[TensorSpan]
    arenas: Dict[int, int]  # memory id -> bytes: the plan's peak for that arena
    lower_bound: Optional[int] = None  # of arena 1, from report.json (the planner's bound)
    ops: Dict[int, str] = field(default_factory=dict)  # instruction index -> operator name (kernel calls)
    delegates: Dict[int, str] = field(default_factory=dict)  # instruction index -> "delegate 0 (EthosUBackend)"


def _program_files(program: Union[str, Path]):
    path = Path(program)
    pte = path / "model.pte" if path.is_dir() else path
    if not pte.is_file():
        raise UsageError(f"no program at {program} (give an export folder or a .pte file)")
    return pte, pte.with_name("report.json")


def load_plan(program: Union[str, Path], method: str = "forward") -> MemoryPlan:
    """The memory plan as the .pte holds it (offsets from each tensor's allocation_info, arena sizes from
    non_const_buffer_sizes), with the lifetimes the planner used (planner.lifetimes, same definition)."""
    from mcu_export.planner.lifetimes import compute_lifetimes
    from mcu_export.pte import program as pte_types
    from mcu_export.pte.reader import read_program_file

    pte_path, report_path = _program_files(program)
    plan = read_program_file(pte_path).method(method)
    tensors = []
    for lt in compute_lifetimes(plan):
        value = plan.values[lt.value]
        assert isinstance(value, pte_types.Tensor)  # compute_lifetimes returns planned tensors only
        info = value.allocation_info
        if info is None:  # planned by its data_buffer_idx but given no place: nothing to draw
            continue
        tensors.append(TensorSpan(lt.value, info.memory_id, info.memory_offset, lt.size, lt.first, lt.last))
    arenas = {i: n for i, n in enumerate(plan.non_const_buffer_sizes) if i and n}
    instructions = [i for chain in plan.chains for i in chain.instructions]
    ops = {
        step: plan.operators[i.op_index].qualified
        for step, i in enumerate(instructions)
        if isinstance(i, pte_types.KernelCall)
    }
    delegates = {
        step: f"delegate {i.delegate_index} ({plan.delegates[i.delegate_index].id})"
        for step, i in enumerate(instructions)
        if isinstance(i, pte_types.DelegateCall) and i.delegate_index < len(plan.delegates)
    }
    lower = None
    try:
        lower = json.loads(report_path.read_text())["memory"]["lower_bound_bytes"]
    except (OSError, ValueError, KeyError, TypeError):
        pass  # a bare .pte: no line for the bound, rather than one computed differently from the planner's
    return MemoryPlan(len(instructions), tensors, arenas, lower, ops, delegates)
