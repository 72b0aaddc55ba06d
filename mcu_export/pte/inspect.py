"""Readable text for a `Program`: what `mcu-export inspect model.pte` prints.

Things are named by the schema's names (values, operators, non_const_buffer_sizes, constant_segment ...)
so that the output can be matched against the format. Tensors appear in instructions as
`%12:f32[1,8,16,16]@arena1+0x40` (planned), `%0:f32[4,8]@const#1` (constant) or `%3:f32[2,8]` (data
supplied at run time).
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, List, Optional, Sequence

from mcu_export import dtypes
from mcu_export.ethosu import blob as ethosu_blob
from mcu_export.ethosu import payload as ethosu_payload
from mcu_export.pte import debug_map as debug_map_mod
from mcu_export.pte import program as P


def dtype_name(st: int, short: bool = False) -> str:
    return dtypes.short_name(st) if short else dtypes.name(st)


def _shape(t: P.Tensor) -> str:
    return "[" + ",".join(str(s) for s in t.sizes) + "]"


def _where(t: P.Tensor) -> str:
    if t.allocation_info is not None:
        a = t.allocation_info
        return f"arena{a.memory_id}+0x{a.memory_offset:x}"
    if t.data_buffer_idx:
        return f"const#{t.data_buffer_idx}"
    return ""


def tensor_ref(index: int, t: P.Tensor) -> str:
    where = _where(t)
    return f"%{index}:{dtype_name(t.scalar_type, short=True)}{_shape(t)}" + (f"@{where}" if where else "")


def _short(v: P.EValue) -> str:
    if isinstance(v, P.Null):
        return "Null"
    if isinstance(v, P.Int):
        return str(v.int_val)
    if isinstance(v, P.Bool):
        return str(bool(v.bool_val))
    if isinstance(v, P.Double):
        return repr(float(v.double_val))
    if isinstance(v, P.String):
        return repr(v.string_val)
    if isinstance(v, (P.DoubleList, P.BoolList)):
        return "[" + ", ".join(str(x) for x in v.items) + "]"
    return type(v).__name__


def value_summary(plan: P.ExecutionPlan, index: int) -> str:
    """One value as an instruction argument: tensors with dtype/shape/place, lists resolved."""
    v = plan.values[index]
    if isinstance(v, P.Tensor):
        return tensor_ref(index, v)
    if isinstance(v, P.IntList):
        # Items are EValue indices of Int values: show the ints themselves.
        return "[" + ", ".join(_short(plan.values[i]) for i in v.items) + "]"
    if isinstance(v, (P.TensorList, P.OptionalTensorList)):
        return "(" + ", ".join("None" if i < 0 else f"%{i}" for i in v.items) + ")"
    return _short(v)


def _instruction(plan: P.ExecutionPlan, ins: P.Instruction) -> str:
    if isinstance(ins, P.KernelCall):
        args = ", ".join(value_summary(plan, a) for a in ins.args)
        return f"{plan.operators[ins.op_index].qualified}({args})"
    if isinstance(ins, P.DelegateCall):
        args = ", ".join(value_summary(plan, a) for a in ins.args)
        return f"delegate#{ins.delegate_index} {plan.delegates[ins.delegate_index].id}({args})"
    if isinstance(ins, P.MoveCall):
        return f"move %{ins.move_from} -> %{ins.move_to}"
    if isinstance(ins, P.JumpFalseCall):
        return f"jump_false %{ins.cond_value_index} -> [{ins.destination_instruction}]"
    return f"free %{ins.value_index}"


def _table(rows: List[List[str]], indent: str = "    ") -> List[str]:
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def _io(plan: P.ExecutionPlan, name: str, indices: List[int]) -> List[str]:
    lines = [f"  {name}:"]
    for i in indices:
        v = plan.values[i]
        if isinstance(v, P.Tensor):
            lines.append(f"    %{i}: {dtype_name(v.scalar_type)}{_shape(v)}")
        else:
            lines.append(f"    %{i}: {type(v).__name__} {value_summary(plan, i)}")
    return lines


def _tensors(prog: P.Program, plan: P.ExecutionPlan) -> List[str]:
    rows = [["value", "dtype", "shape", "bytes", "where"]]
    for i, v in enumerate(plan.values):
        if not isinstance(v, P.Tensor):
            continue
        if v.allocation_info is not None:
            a = v.allocation_info
            where = f"arena{a.memory_id} 0x{a.memory_offset:x}..0x{a.memory_offset + v.nbytes:x}"
        elif v.data_buffer_idx:
            where = f"constant #{v.data_buffer_idx} ({len(prog.constant_bytes(v.data_buffer_idx))} B stored)"
        else:
            where = "supplied at run time"
        rows.append([f"%{i}", dtype_name(v.scalar_type), _shape(v), str(v.nbytes), where])
    return ["  tensors:"] + _table(rows)


def _memory_plan(plan: P.ExecutionPlan) -> List[str]:
    lines = ["  memory plan (non_const_buffer_sizes):"]
    ends: Dict[int, List[int]] = {}  # by arena: where each tensor placed in it ends
    for v in plan.values:
        if isinstance(v, P.Tensor) and v.allocation_info is not None:
            ends.setdefault(v.allocation_info.memory_id, []).append(v.allocation_info.memory_offset + v.nbytes)
    rows = []
    for mid, size in enumerate(plan.non_const_buffer_sizes):
        if mid == 0:
            continue  # reserved by the schema
        ts = ends.get(mid, [])
        rows.append([f"arena{mid}", f"size {size} B", f"{len(ts)} tensors", f"peak {max(ts, default=0)} B"])
    return lines + (_table(rows) or ["    (no arenas)"])


def _spec_value(b: bytes) -> str:
    text = b.decode("ascii", errors="replace")
    if b and all(32 <= c < 127 for c in b):
        return repr(text) if len(b) <= 40 else repr(text[:40]) + "..."
    hexs = b[:16].hex()
    return f"0x{hexs}" + ("..." if len(b) > 16 else "") + f" ({len(b)} B)"


def _delegates(prog: P.Program, plan: P.ExecutionPlan) -> List[str]:
    if not plan.delegates:
        return []
    lines = ["  delegates:"]
    for k, d in enumerate(plan.delegates):
        if d.processed.location == 1:
            size, loc = prog.segments[d.processed.index].size, f"segment {d.processed.index}"
        else:
            size, loc = len(prog.backend_delegate_data[d.processed.index]), f"inline {d.processed.index}"
        lines.append(f"    [{k}] {d.id}: {size} B ({loc})")
        for cs in d.compile_specs:
            lines.append(f"        {cs.key} = {_spec_value(cs.value)}")
        if d.id == ethosu_blob.BACKEND_ID and d.processed.location == P.INLINE:
            lines += _ethosu_blob(prog.backend_delegate_data[d.processed.index])
    return lines


def _ethosu_blob(data: bytes) -> List[str]:
    """An Ethos-U blob's blocks, scratch and I/O (ExecuTorch's Arm layout, mcu_export.ethosu.blob)."""
    try:
        found, blob = ethosu_blob.blocks(data), ethosu_blob.unpack(data)
    except ethosu_blob.BlobError as exc:
        return [f"        {exc}"]
    lines = ["        blocks: " + ", ".join(f"{b.name} {b.length} B" for b in found)]
    try:
        commands = len(ethosu_payload.parse(blob.cmd_data).commands)
        lines.append(f"        commands: {commands}")
    except ethosu_blob.BlobError as exc:
        lines.append(f"        {exc}")
    lines.append(f"        scratch: {blob.scratch_size} B")
    for kind, records in (("input", blob.inputs), ("output", blob.outputs)):
        for i, r in enumerate(records):
            shape = "x".join(str(s) for s in r.shape)
            lines.append(f"        {kind} {i}: {shape} x{r.elem_size} B at region {r.region} + {r.offset}")
    return lines


def _located(line: str, entry: Optional[Dict]) -> str:
    """An instruction's line with its source line after it (the torch op too when the export recorded it)."""
    if not entry or not entry.get("source"):
        return line
    torch_op = f" ({entry['torch_op']})" if entry.get("torch_op") else ""
    covers = entry.get("covers") or []
    more = f"; runs the ops of {', '.join(covers)}" if len(covers) > 1 else ""
    return f"{line}  # {entry['source']}{torch_op}{more}"


def format_method(prog: P.Program, plan: P.ExecutionPlan, debug_map: Optional[Sequence[Dict]] = None) -> str:
    """`debug_map`: report.json's (mcu_export.pte.debug_map) for the first chain; what the .pte records when None."""
    instrs = [ins for c in plan.chains for ins in c.instructions]
    arenas = max(len(plan.non_const_buffer_sizes) - 1, 0)
    lines = [
        f"method {plan.name}: {len(plan.values)} values, {len(instrs)} instructions, "
        f"{len(plan.operators)} operators, {arenas} arenas"
    ]
    lines += _io(plan, "inputs", plan.inputs) + _io(plan, "outputs", plan.outputs)
    uses = Counter(ins.op_index for ins in instrs if isinstance(ins, P.KernelCall))
    lines.append("  operators:")
    lines += _table([[f"[{i}]", op.qualified, f"used {uses[i]}x"] for i, op in enumerate(plan.operators)])
    lines.append("  instructions:")
    entries = list(debug_map) if debug_map is not None else debug_map_mod.from_program(plan)
    for c, chain in enumerate(plan.chains):
        prefix = f"{c}." if len(plan.chains) > 1 else ""
        lines += [
            _located(
                f"    [{prefix}{j}] {_instruction(plan, ins)}", entries[j] if c == 0 and j < len(entries) else None
            )
            for j, ins in enumerate(chain.instructions)
        ]
    lines += _tensors(prog, plan) + _memory_plan(plan) + _delegates(prog, plan)
    return "\n".join(lines)


def format_program(prog: P.Program, debug_map: Optional[Sequence[Dict]] = None) -> str:
    """`debug_map`: report.json's, for `forward` (mcu_export.pte.debug_map.load)."""
    consts = prog.constants()
    where = "constant_buffer (inline)"
    if prog.constant_segment is not None and prog.constant_segment.offsets:
        where = f"constant_segment (segment {prog.constant_segment.segment_index})"
    methods = ", ".join(p.name for p in prog.execution_plan)
    lines = [
        f"program: schema version {prog.version}, {len(prog.execution_plan)} methods ({methods})",
        f"constants: {max(len(consts) - 1, 0)} buffers, {sum(len(c) for c in consts)} bytes in {where}",
        f"segments: {len(prog.segments)}",
    ]
    lines += [f"  [{i}] offset 0x{s.offset:x} size {s.size} B" for i, s in enumerate(prog.segments)]
    for plan in prog.execution_plan:
        lines += ["", format_method(prog, plan, debug_map if plan.name == "forward" else None)]
    return "\n".join(lines) + "\n"
