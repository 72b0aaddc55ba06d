"""What a chart shows, independent of how it is drawn: the per-op times of one invoke and the memory plan of
the program that ran. Built from a serial `Profile` (ticks), a simulator `ModelRun` (instructions per op)
and a .pte (its planned tensors: arena, offset, size, first and last instruction)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Union

from mcu_export.errors import UsageError


@dataclass(frozen=True)
class OpBar:
    index: int  # instruction index in the method's chain
    name: str  # qualified operator name (aten::convolution.out), or what ran (a delegate)
    value: Optional[int]  # ticks or instructions; None: not measured on its own (fused into an earlier call)
    kind: str = "kernel"


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


@dataclass
class ChartData:
    title: str
    unit: str  # "ticks" or "instructions"
    ops: List[OpBar]
    total: Optional[int]  # the whole invoke (the ops' share is of this); None: the sum of the ops
    plan: Optional[MemoryPlan] = None
    notes: List[str] = field(default_factory=list)  # said on the page: what is missing and why
    # Instructions with no bar in this unit but a figure to say, e.g. a delegate call's NPU cycles: index -> text.
    marks: Dict[int, str] = field(default_factory=dict)

    @property
    def denominator(self) -> int:
        return self.total or sum(o.value or 0 for o in self.ops)


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


def _check_same_program(ops: List[OpBar], plan: MemoryPlan) -> None:
    """The device profiles whatever model is active; a timeline of another program would be a wrong chart."""
    if ops and len(ops) != plan.instructions:  # the device reports every instruction of its model
        raise UsageError(f"the profile has {len(ops)} instructions, the program {plan.instructions}: "
                         "is --program the model loaded on the device?")  # fmt: skip
    for o in ops:
        if o.index >= plan.instructions:
            raise UsageError(f"the profile has instruction {o.index}, the program only {plan.instructions}: "
                             "is --program the model loaded on the device?")  # fmt: skip
        if o.kind in ("kernel", "fused") and plan.ops.get(o.index, o.name) != o.name:
            raise UsageError(f"instruction {o.index} is {o.name} on the device but {plan.ops[o.index]} in the "
                             "program: is --program the model loaded on the device?")  # fmt: skip


def from_profile(profile, plan: Optional[MemoryPlan] = None, title: str = "serial profile") -> ChartData:
    """From `SerialClient.profile()`: ticks per instruction and of the whole invoke."""
    ops = [OpBar(o.index, o.name or o.kind, o.ticks, o.kind) for o in profile.ops]
    if plan is not None:
        _check_same_program(ops, plan)
    notes = [] if plan else ["no memory plan: pass the program (--program OUT) for the arena timeline"]
    return ChartData(title, "ticks", ops, profile.total_ticks or None, plan, notes)


def _npu_marks(plan: Optional[MemoryPlan], npu: Optional[Dict]) -> Dict[int, str]:
    """Each delegate call's NPU cycles (runners.report.npu_report): what a PMU counted where one did, else
    Vela's estimate. NPU cycles are not CPU instructions, so they are said beside the bars, not drawn as one."""
    if plan is None or not plan.delegates:
        return {}
    npu = npu or {}
    measured = {m["instruction"]: m for m in npu.get("measured", [])}
    estimated = {s["delegate"]: s["cycles_npu"] for s in npu.get("subgraphs", [])}
    marks = {}
    for step, label in plan.delegates.items():
        delegate = int(label.split()[1])
        if step in measured:
            marks[step] = f"NPU {measured[step]['cycles']:,} cycles ({measured[step]['source']})"
        elif delegate in estimated:
            marks[step] = f"NPU {estimated[delegate]:,} cycles ({npu.get('source', 'estimate')})"
        else:
            marks[step] = "NPU (no cycle count)"
    return marks


def from_run(run, plan: Optional[MemoryPlan] = None, title: str = "", npu: Optional[Dict] = None) -> ChartData:
    """From a `ModelRun`: instructions per kernel call where the target counted them (the icount plugin);
    npu: the run's NPU figures (runners.report.npu_report), said at each delegate call."""
    title = title or f"{run.board} ({run.target})"
    notes = []
    if run.instructions_per_inference is None:
        hint = " (`mcu-export serial profile --chart` gives ticks per op)" if run.target == "serial" else ""
        notes.append(f"{run.target} runs count no instructions per op: only the arena timeline is shown{hint}")
        ops: List[OpBar] = []
    else:
        ops = [OpBar(o.index, o.op, o.instructions) for o in run.per_op]
    marks = {i: m for i, m in _npu_marks(plan, npu).items() if i not in {o.index for o in ops}}
    return ChartData(title, "instructions", ops, run.instructions_per_inference, plan, notes, marks)
