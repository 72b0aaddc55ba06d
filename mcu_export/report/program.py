"""What the report shows of the program itself, read from OUT/model.pte: each instruction with the tensors it
reads and writes and the model source line it came from (the export's debug map, pte/debug_map.py), and where
the memory plan puts a kernel's output over the input it replaces (the planner's overlaps)."""

from __future__ import annotations

import linecache
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from mcu_export.planner.lifetimes import instruction_args, tensors_named
from mcu_export.pte import program as pte
from mcu_export.pte.debug_map import source_text
from mcu_export.pte.inspect import dtype_name
from mcu_export.report.plan import MemoryPlan, TensorSpan


@dataclass
class Instruction:
    index: int
    op: str  # qualified operator, "delegate 0 (EthosUBackend)" or "move"
    unit: str  # "CPU" or "NPU"
    reads: List[str] = field(default_factory=list)  # "%7 i8[1,4,8,8] from [1]", "%11 i8[4,3,3,1] const"
    writes: List[str] = field(default_factory=list)
    source: Optional[str] = None  # "model.py:42 in forward"
    code: Optional[str] = None  # that line's text, where the file is still there
    # The same, as values (the graph figure's edges): a planned tensor read -> the instruction that wrote it
    # (-1: a model input); the tensors it writes; those of them the method returns (model outputs).
    read_from: Dict[int, int] = field(default_factory=dict)
    written: List[int] = field(default_factory=list)
    returns: List[int] = field(default_factory=list)


@dataclass(frozen=True)
class Overlap:
    """Bytes two planned tensors share at an instruction where both are live: an out over its input."""

    arena: int
    instruction: int
    low: int
    high: int
    reader: int  # the value read there (its last use)
    writer: int  # the value written over it


def _tensor_text(plan: pte.ExecutionPlan, v: int, note: str) -> str:
    t = plan.values[v]
    assert isinstance(t, pte.Tensor)
    shape = ",".join(str(s) for s in t.sizes)
    return f"%{v} {dtype_name(t.scalar_type, short=True)}[{shape}]" + (f" {note}" if note else "")


def _first_use(plan: pte.ExecutionPlan, chain_instructions) -> Dict[int, int]:
    """value -> the first instruction that names it (-1: a model input), as planner.lifetimes counts."""
    first = dict.fromkeys(plan.inputs, -1)
    for step, ins in enumerate(chain_instructions):
        for arg in instruction_args(ins):
            for v in tensors_named(plan.values, arg):
                first.setdefault(v, step)
    return first


def instructions(plan: pte.ExecutionPlan, debug: Sequence[Dict] = ()) -> List[Instruction]:
    """A tensor is written by the instruction that first names it and read by every later one. `debug`: the
    debug map's entries (pte/debug_map.py), for each instruction's source line."""
    chain_instructions = [i for chain in plan.chains for i in chain.instructions]
    where = {e["index"]: e for e in debug if e.get("file")}
    first_use = _first_use(plan, chain_instructions)
    outputs = set(plan.outputs)
    rows = []
    for step, ins in enumerate(chain_instructions):
        if isinstance(ins, pte.KernelCall):
            row = Instruction(step, plan.operators[ins.op_index].qualified, "CPU")
        elif isinstance(ins, pte.DelegateCall):
            backend = plan.delegates[ins.delegate_index].id if ins.delegate_index < len(plan.delegates) else "?"
            row = Instruction(step, f"delegate {ins.delegate_index} ({backend})", "NPU")
        else:
            row = Instruction(step, type(ins).__name__.replace("Call", "").lower(), "CPU")
        seen = set()
        for arg in instruction_args(ins):
            for v in tensors_named(plan.values, arg):
                t = plan.values[v]
                if v in seen or not isinstance(t, pte.Tensor):
                    continue
                seen.add(v)
                if t.data_buffer_idx:
                    row.reads.append(_tensor_text(plan, v, "const"))
                elif first_use.get(v, step) == step:
                    row.writes.append(_tensor_text(plan, v, ""))
                    row.written.append(v)
                    if v in outputs:
                        row.returns.append(v)
                else:
                    source = first_use.get(v, -1)
                    row.reads.append(_tensor_text(plan, v, "input" if source < 0 else f"from [{source}]"))
                    row.read_from[v] = source
        entry = where.get(step)
        if entry is not None:
            row.source = source_text(entry)
            row.code = linecache.getline(entry["file"], entry["line"]).strip() or None
        rows.append(row)
    return rows


def overlaps(plan: MemoryPlan) -> List[Overlap]:
    """Every pair of tensors sharing bytes while both are live. A plan that keeps tensors apart has none; the
    planner's overlaps (an out placed over the input it replaces, where the kernel allows) meet at one
    instruction, the input's last use and the output's first."""
    found = []
    by_arena: Dict[int, List[TensorSpan]] = {}
    for t in plan.tensors:
        by_arena.setdefault(t.arena, []).append(t)
    for arena, tensors in sorted(by_arena.items()):
        tensors.sort(key=lambda t: (t.first, t.offset))
        for k, a in enumerate(tensors):
            for b in tensors[k + 1 :]:
                if b.first > a.last:
                    break
                low, high = max(a.offset, b.offset), min(a.offset + a.size, b.offset + b.size)
                if low < high:
                    reader, writer = (a, b) if a.last <= b.last else (b, a)
                    found.append(Overlap(arena, max(a.first, b.first), low, high, reader.value, writer.value))
    return found


def producers(plan: MemoryPlan) -> Dict[int, str]:
    """value -> what wrote it: the operator of its first instruction, "model input", or the delegate."""
    names = {**plan.ops, **plan.delegates}
    out = {}
    for t in plan.tensors:
        if t.first < 0:
            out[t.value] = "model input"
        else:
            out[t.value] = short_op(names.get(t.first, "other"))
    return out


def short_op(qualified: str) -> str:
    """aten::convolution.out -> convolution; cortex_m::quantized_conv2d.out -> quantized_conv2d."""
    if qualified.startswith("delegate"):
        return qualified
    return qualified.split("::")[-1].removesuffix(".out")
