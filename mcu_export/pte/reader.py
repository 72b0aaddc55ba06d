""".pte bytes -> `Program`, for files from any writer (ours or ExecuTorch's), trusting nothing.

Structure is checked by `flatview` (offsets, vtables, vector lengths); after that, the references
between tables (segment indices, constant indices, value indices of instructions and lists) are
checked here, so that code walking a `Program` (inspect, the lowering) can index without guarding.
Every problem is a PteFormatError with one line naming the field.
"""

from __future__ import annotations

import struct
from pathlib import Path

from mcu_export.errors import PteFormatError, UsageError
from mcu_export.pte import program as P
from mcu_export.pte.checks import check_references
from mcu_export.pte.flatview import FlatView, Table, fail

_SCALAR_TYPES = {int(t) for t in P.ScalarType}


def _list(x):
    return [] if x is None else x


def _evalue(t: Table) -> P.EValue:
    tag = t.scalar("val_type", "B")
    if not 1 <= tag <= len(P.KERNEL_TYPES):
        raise fail("EValue.val_type", f"bad union tag {tag} (KernelTypes has 1..{len(P.KERNEL_TYPES)})")
    kind = P.KERNEL_TYPES[tag - 1]
    v = t.table("val", kind.__name__)
    if v is None:
        raise fail("EValue.val", f"missing {kind.__name__} value")
    if kind is P.Null:
        return P.Null()
    if kind is P.Int:
        return P.Int(v.scalar("int_val", "q"))
    if kind is P.Bool:
        return P.Bool(bool(v.scalar("bool_val", "B")))
    if kind is P.Double:
        return P.Double(v.scalar("double_val", "d", 0.0))
    if kind is P.String:
        return P.String(v.string("string_val") or "")
    if kind is P.Tensor:
        return _tensor(v)
    fmt = {P.IntList: "q", P.DoubleList: "d", P.BoolList: "B"}.get(kind, "i")
    items = _list(v.scalars("items", fmt))
    return kind([bool(x) for x in items] if kind is P.BoolList else items)


def _tensor(t: Table) -> P.Tensor:
    st = t.scalar("scalar_type", "b")
    if st not in _SCALAR_TYPES:
        raise fail("Tensor.scalar_type", f"unknown ScalarType {st}")
    alloc = extra = None
    a = t.table("allocation_info", "AllocationDetails")
    if a is not None:
        off = a.scalar("memory_offset_low", "I") | (a.scalar("memory_offset_high", "I") << 32)
        alloc = P.AllocationDetails(memory_id=a.scalar("memory_id", "I"), memory_offset=off)
    e = t.table("extra_tensor_info", "ExtraTensorInfo")
    if e is not None:
        extra = P.ExtraTensorInfo(
            e.scalar("mutable_data_segments_idx", "Q"),
            e.string("fully_qualified_name"),
            e.scalar("location", "b"),
            e.scalar("device_type", "b"),
            e.scalar("device_index", "b"),
        )
    return P.Tensor(
        scalar_type=P.ScalarType(st),
        sizes=_list(t.scalars("sizes", "i")),
        dim_order=_list(t.scalars("dim_order", "B")),
        data_buffer_idx=t.scalar("data_buffer_idx", "I"),
        allocation_info=alloc,
        storage_offset=t.scalar("storage_offset", "i"),
        requires_grad=bool(t.scalar("requires_grad", "B")),
        layout=t.scalar("layout", "b"),
        shape_dynamism=t.scalar("shape_dynamism", "b"),
        extra_tensor_info=extra,
    )


def _instruction(t: Table) -> P.Instruction:
    tag = t.scalar("instr_args_type", "B")
    if not 1 <= tag <= len(P.INSTRUCTION_TYPES):
        raise fail(
            "Instruction.instr_args_type",
            f"bad union tag {tag} (InstructionArguments has 1..{len(P.INSTRUCTION_TYPES)})",
        )
    kind = P.INSTRUCTION_TYPES[tag - 1]
    v = t.table("instr_args", kind.__name__)
    if v is None:
        raise fail("Instruction.instr_args", f"missing {kind.__name__} value")
    if kind is P.KernelCall:
        return P.KernelCall(v.scalar("op_index", "i"), _list(v.scalars("args", "i")))
    if kind is P.DelegateCall:
        return P.DelegateCall(v.scalar("delegate_index", "i"), _list(v.scalars("args", "i")))
    if kind is P.MoveCall:
        return P.MoveCall(v.scalar("move_from", "i"), v.scalar("move_to", "i"))
    if kind is P.JumpFalseCall:
        return P.JumpFalseCall(v.scalar("cond_value_index", "i"), v.scalar("destination_instruction", "i"))
    return P.FreeCall(v.scalar("value_index", "i"))


def _chain(t: Table) -> P.Chain:
    stack = None
    lists = t.tables("stacktrace", "FrameList")
    if lists is not None:
        stack = [
            [
                P.Frame(
                    f.string("filename") or "",
                    f.scalar("lineno", "i"),
                    f.string("name") or "",
                    f.string("context") or "",
                )
                for f in _list(fl.tables("items", "Frame"))
            ]
            for fl in lists
        ]
    return P.Chain(
        inputs=_list(t.scalars("inputs", "i")),
        outputs=_list(t.scalars("outputs", "i")),
        instructions=[_instruction(i) for i in _list(t.tables("instructions", "Instruction"))],
        stacktrace=stack,
    )


def _delegate(t: Table) -> P.BackendDelegate:
    ref = t.table("processed", "BackendDelegateDataReference")
    if ref is None:
        raise fail("BackendDelegate.processed", "missing")
    specs = [
        P.CompileSpec(c.string("key") or "", c.raw("value") or b"")
        for c in _list(t.tables("compile_specs", "CompileSpec"))
    ]
    return P.BackendDelegate(
        id=t.string("id") or "",
        processed=P.BackendDelegateDataReference(ref.scalar("location", "b"), ref.scalar("index", "I")),
        compile_specs=specs,
    )


def _plan(t: Table) -> P.ExecutionPlan:
    meta = t.table("container_meta_type", "ContainerMetadata")
    devices = t.tables("non_const_buffer_device", "NonConstBufferDevice")
    return P.ExecutionPlan(
        name=t.string("name") or "",
        values=[_evalue(v) for v in _list(t.tables("values", "EValue"))],
        inputs=_list(t.scalars("inputs", "i")),
        outputs=_list(t.scalars("outputs", "i")),
        chains=[_chain(c) for c in _list(t.tables("chains", "Chain"))],
        operators=[
            P.Operator(o.string("name") or "", o.string("overload") or "")
            for o in _list(t.tables("operators", "Operator"))
        ],
        non_const_buffer_sizes=_list(t.scalars("non_const_buffer_sizes", "q")),
        delegates=[_delegate(d) for d in _list(t.tables("delegates", "BackendDelegate"))],
        container_meta_type=None if meta is None else (meta.string("encoded_inp_str"), meta.string("encoded_out_str")),
        non_const_buffer_device=None
        if devices is None
        else [
            P.NonConstBufferDevice(
                d.scalar("buffer_idx", "i"), d.scalar("device_type", "b"), d.scalar("device_index", "b")
            )
            for d in devices
        ],
    )


def _subsegment(t: Table) -> P.SubsegmentOffsets:
    return P.SubsegmentOffsets(t.scalar("segment_index", "I"), _list(t.scalars("offsets", "Q")))


def _extended_header(data: bytes):
    """(program_size, segment_base_offset) from the eh00 header at byte 8, or the whole file if none."""
    if data[8:12] != P.EXTENDED_HEADER_MAGIC:
        return len(data), 0
    if len(data) < 32:
        raise fail("extended header", f"file of {len(data)} bytes too short for the eh00 header")
    length, program_size, base = struct.unpack_from("<IQQ", data, 12)
    if length < 24 or 8 + length > len(data):
        raise fail("extended header.length", f"bad header length {length}")
    seg_size = struct.unpack_from("<Q", data, 32)[0] if length >= 32 else 0
    if not 8 + length <= program_size <= len(data):
        raise fail("extended header.program_size", f"0x{program_size:x} outside the file (size 0x{len(data):x})")
    if base and not program_size <= base <= len(data):
        raise fail("extended header.segment_base_offset", f"0x{base:x} outside 0x{program_size:x}..0x{len(data):x}")
    if base and base + seg_size > len(data):
        raise fail("extended header.segment_data_size", f"0x{seg_size:x} bytes from 0x{base:x} past end of file")
    return program_size, base


def read_program(data: bytes) -> P.Program:
    data = bytes(data)
    if len(data) < 8:
        raise fail("file", f"{len(data)} bytes is too short for a flatbuffer")
    if data[4:8] != P.FILE_IDENTIFIER:
        found = data[4:8].decode("ascii", errors="backslashreplace")
        raise fail("file identifier", f"'{found}' is not '{P.FILE_IDENTIFIER.decode()}' (not a .pte program)")
    program_size, base = _extended_header(data)
    view = FlatView(data[:program_size])
    root = view.table_at(view.deref(0, "Program (root offset)"), "Program", "Program")
    cseg = root.table("constant_segment", "SubsegmentOffsets")
    mutable = root.tables("mutable_data_segments", "SubsegmentOffsets")
    named = root.tables("named_data", "NamedData")
    prog = P.Program(
        execution_plan=[_plan(p) for p in _list(root.tables("execution_plan", "ExecutionPlan"))],
        constant_buffer=[b.raw("storage") or b"" for b in _list(root.tables("constant_buffer", "Buffer"))],
        backend_delegate_data=[
            d.raw("data") or b"" for d in _list(root.tables("backend_delegate_data", "BackendDelegateInlineData"))
        ],
        segments=[
            P.DataSegment(s.scalar("offset", "Q"), s.scalar("size", "Q"))
            for s in _list(root.tables("segments", "DataSegment"))
        ],
        constant_segment=None if cseg is None else _subsegment(cseg),
        version=root.scalar("version", "I"),
        segment_data=data[base:] if base else b"",
        mutable_data_segments=None if mutable is None else [_subsegment(m) for m in mutable],
        named_data=None
        if named is None
        else [P.NamedData(n.string("key") or "", n.scalar("segment_index", "I")) for n in named],
    )
    check_references(prog)
    return prog


def read_program_file(path) -> P.Program:
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"no such .pte file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a .pte file") from None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    try:
        return read_program(data)
    except PteFormatError as e:
        raise PteFormatError(f"{path}: {e.message}") from None
