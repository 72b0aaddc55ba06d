"""Cross-references inside a `Program` that a well-formed .pte must satisfy.

The reader runs these after parsing so that code walking a Program (inspect, the lowering) can index
lists without guarding. Each failure names the field that holds the bad reference.
"""

from __future__ import annotations

from mcu_export.pte import program as P
from mcu_export.pte.flatview import fail


def _index(where: str, i: int, n: int, what: str, allow_minus_one: bool = False) -> None:
    if not (0 <= i < n or (allow_minus_one and i == -1)):
        raise fail(where, f"index {i} outside the {n} {what}")


def _check_segments(prog: P.Program) -> None:
    nseg = len(prog.segments)
    for i, s in enumerate(prog.segments):
        if s.offset + s.size > len(prog.segment_data):
            raise fail(
                f"Program.segments[{i}]",
                f"0x{s.offset:x}+0x{s.size:x} past the end of the segment data (0x{len(prog.segment_data):x} bytes)",
            )
    cs = prog.constant_segment
    if cs is not None and cs.offsets:
        _index("SubsegmentOffsets.segment_index (constant_segment)", cs.segment_index, nseg, "segments")
        size = prog.segments[cs.segment_index].size
        prev = 0
        for i, off in enumerate(cs.offsets):
            if not prev <= off <= size:
                raise fail(
                    f"SubsegmentOffsets.offsets[{i}] (constant_segment)",
                    f"offset 0x{off:x} outside 0x{prev:x}..0x{size:x} of segment {cs.segment_index}",
                )
            prev = off
    for i, m in enumerate(prog.mutable_data_segments or []):
        _index(f"Program.mutable_data_segments[{i}].segment_index", m.segment_index, nseg, "segments")
    for i, nd in enumerate(prog.named_data or []):
        _index(f"Program.named_data[{i}].segment_index", nd.segment_index, nseg, "segments")


def _check_value(plan: P.ExecutionPlan, i: int, v: P.EValue, nconst: int) -> None:
    nval = len(plan.values)
    where = f"ExecutionPlan.values[{i}]"
    if isinstance(v, P.Tensor):
        if v.allocation_info is None and v.data_buffer_idx:
            _index(f"{where} Tensor.data_buffer_idx", v.data_buffer_idx, nconst, "constant buffers")
        if v.allocation_info is not None:
            _index(
                f"{where} AllocationDetails.memory_id",
                v.allocation_info.memory_id,
                len(plan.non_const_buffer_sizes),
                "non_const_buffer_sizes",
            )
        if any(s < 0 for s in v.sizes):
            raise fail(f"{where} Tensor.sizes", f"negative size in {v.sizes}")
    elif isinstance(v, (P.IntList, P.TensorList, P.OptionalTensorList)):
        for j, item in enumerate(v.items):
            _index(
                f"{where} {type(v).__name__}.items[{j}]",
                item,
                nval,
                "values",
                allow_minus_one=isinstance(v, P.OptionalTensorList),
            )


def _check_plan(prog: P.Program, plan: P.ExecutionPlan) -> None:
    nval, nconst = len(plan.values), prog.num_constants
    for i, v in enumerate(plan.values):
        _check_value(plan, i, v, nconst)
    for name in ("inputs", "outputs"):
        for j, idx in enumerate(getattr(plan, name)):
            _index(f"ExecutionPlan.{name}[{j}]", idx, nval, "values")
    for j, size in enumerate(plan.non_const_buffer_sizes):
        if size < 0:
            raise fail(f"ExecutionPlan.non_const_buffer_sizes[{j}]", f"negative size {size}")
    for k, d in enumerate(plan.delegates):
        n, what = (
            (len(prog.segments), "segments")
            if d.processed.location == 1
            else (len(prog.backend_delegate_data), "backend_delegate_data entries")
        )
        _index(f"ExecutionPlan.delegates[{k}].processed.index", d.processed.index, n, what)
    for chain in plan.chains:
        for name in ("inputs", "outputs"):
            for j, idx in enumerate(getattr(chain, name)):
                _index(f"Chain.{name}[{j}]", idx, nval, "values")
        for j, ins in enumerate(chain.instructions):
            where = f"Chain.instructions[{j}]"
            if isinstance(ins, P.KernelCall):
                _index(f"{where} KernelCall.op_index", ins.op_index, len(plan.operators), "operators")
            if isinstance(ins, P.DelegateCall):
                _index(f"{where} DelegateCall.delegate_index", ins.delegate_index, len(plan.delegates), "delegates")
            if isinstance(ins, (P.KernelCall, P.DelegateCall)):
                for a, arg in enumerate(ins.args):
                    _index(f"{where} {type(ins).__name__}.args[{a}]", arg, nval, "values")
            elif isinstance(ins, P.MoveCall):
                _index(f"{where} MoveCall.move_from", ins.move_from, nval, "values")
                _index(f"{where} MoveCall.move_to", ins.move_to, nval, "values")
            elif isinstance(ins, P.JumpFalseCall):
                _index(f"{where} JumpFalseCall.cond_value_index", ins.cond_value_index, nval, "values")
                _index(
                    f"{where} JumpFalseCall.destination_instruction",
                    ins.destination_instruction,
                    len(chain.instructions) + 1,
                    "instruction positions",
                )
            elif isinstance(ins, P.FreeCall):
                _index(f"{where} FreeCall.value_index", ins.value_index, nval, "values")


def check_references(prog: P.Program) -> None:
    _check_segments(prog)
    for plan in prog.execution_plan:
        _check_plan(prog, plan)
