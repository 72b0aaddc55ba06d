"""`Program` -> `.pte` bytes: ExecuTorch's Program flatbuffer ("ET12"), built table by table.

Constants go either inline (`Program.constant_buffer`, each Buffer.storage 16-byte aligned from the
start of the file, so firmware can use weights in place from flash) or into a constant segment after the
flatbuffer, announced by the `eh00` extended header. Segments other than the constant segment (delegate
blobs, named data) are carried over from `Program.segment_data` and re-laid out.

Scalars equal to their schema default are left out (flatbuffers' usual rule); vectors are always
written, even when empty, so that readers never have to tell "absent" from "empty".
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import flatbuffers

from mcu_export.pte import program as P
from mcu_export.pte.fbs import slots

HEADER_LENGTH = 32  # eh00 header: magic, length u32, program_size u64, segment_base u64, segment_size u64


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


class _Builder:
    """Thin layer over flatbuffers.Builder: tables addressed by schema field names."""

    def __init__(self) -> None:
        self.b = flatbuffers.Builder(4096)
        self._vtables_by_size: dict = {}
        # Equal vectors and strings written once and referred to from every table that holds them (a flatbuffer
        # is a DAG: a reader follows offsets and never asks whose an object is). Tensors' sizes and dim orders
        # repeat most. Equal tables and vectors of offsets likewise (table(), offsets()): int8 KWS's program
        # shrinks by a tenth.
        self._shared: dict = {}

    def end_object(self) -> int:
        """EndObject, sharing vtables only between tables of equal inline size.

        flatbuffers 25.2.10 (the version tosa-tools pins) dedupes vtables on their field offsets alone, so an
        Int table could reuse a TensorList's vtable and declare 8 inline bytes for its 8-byte field at +4.
        Giving the builder one vtable cache per object size keeps sharing where it is correct."""
        off = self.b.Offset()
        size = off + ((-off) & 3) + 4 - self.b.objectEnd  # EndObject aligns to 4, then writes the soffset
        self.b.vtables = self._vtables_by_size.setdefault(size, {})
        return self.b.EndObject()

    def raw_vector(self, payload: bytes, elem_size: int, alignment: int = 4) -> int:
        n = len(payload) // elem_size
        self.b.StartVector(elem_size, n, max(alignment, elem_size))
        self.b.head -= len(payload)
        self.b.Bytes[self.b.head : self.b.head + len(payload)] = payload
        return self.b.EndVector()

    def ints(self, fmt: str, items) -> int:
        items = list(items)
        payload, size = struct.pack(f"<{len(items)}{fmt}", *items), struct.calcsize(fmt)
        return self._once(("vector", size, payload), lambda: self.raw_vector(payload, size))

    def offsets(self, offs: List[int]) -> int:
        return self._once(("offsets", tuple(offs)), lambda: self._offsets(offs))

    def _offsets(self, offs: List[int]) -> int:
        self.b.StartVector(4, len(offs), 4)
        for o in reversed(offs):
            self.b.PrependUOffsetTRelative(o)
        return self.b.EndVector()

    def string(self, s: Optional[str]) -> Optional[int]:
        return None if s is None else self._once(("string", s), lambda: self.b.CreateString(s))

    def table(self, table_name: str, /, **fields) -> int:
        """fields: name=(kind, value) with kind one of the Prepend*Slot suffixes or "off". A table equal to one
        already written (its fields, the objects they point to being shared already) is that one."""
        key = ("table", table_name, tuple((k, kind, repr(v)) for k, (kind, v) in fields.items()))
        return self._once(key, lambda: self._table(table_name, fields))

    def _once(self, key: tuple, write: Callable[[], int]) -> int:
        """The offset of the object `key` names: written by `write` the first time, shared after."""
        if key not in self._shared:
            self._shared[key] = write()
        return self._shared[key]

    def _table(self, table_name: str, fields: dict) -> int:
        slot = slots(table_name)
        self.b.StartObject(len(slot))
        for fname, (kind, value) in fields.items():
            if value is None:
                continue
            if kind == "off":
                self.b.PrependUOffsetTRelativeSlot(slot[fname], value, 0)
            else:
                # A None default makes doubles always written, so -0.0 survives (-0.0 == 0 would drop it).
                default = None if kind == "Float64" else 0
                getattr(self.b, f"Prepend{kind}Slot")(slot[fname], value, default)
        return self.end_object()


def _evalue(w: _Builder, v: P.EValue) -> int:
    if isinstance(v, P.Null):
        inner = w.table("Null")
    elif isinstance(v, P.Int):
        inner = w.table("Int", int_val=("Int64", v.int_val))
    elif isinstance(v, P.Bool):
        inner = w.table("Bool", bool_val=("Bool", bool(v.bool_val)))
    elif isinstance(v, P.Double):
        inner = w.table("Double", double_val=("Float64", float(v.double_val)))
    elif isinstance(v, P.String):
        s = w.string(v.string_val)
        inner = w.table("String", string_val=("off", s))
    elif isinstance(v, P.IntList):
        inner = w.table("IntList", items=("off", w.ints("q", v.items)))
    elif isinstance(v, P.DoubleList):
        inner = w.table("DoubleList", items=("off", w.ints("d", v.items)))
    elif isinstance(v, P.BoolList):
        inner = w.table("BoolList", items=("off", w.ints("?", [bool(x) for x in v.items])))
    elif isinstance(v, (P.TensorList, P.OptionalTensorList)):
        inner = w.table(type(v).__name__, items=("off", w.ints("i", v.items)))
    elif isinstance(v, P.Tensor):
        inner = _tensor(w, v)
    else:
        raise TypeError(f"not an EValue: {v!r}")
    return w.table("EValue", val_type=("Uint8", P.kernel_type_tag(v)), val=("off", inner))


def _tensor(w: _Builder, t: P.Tensor) -> int:
    sizes = w.ints("i", t.sizes)
    dim_order = w.ints("B", t.dim_order)
    alloc = extra = None
    if t.allocation_info is not None:
        off = t.allocation_info.memory_offset
        alloc = w.table(
            "AllocationDetails",
            memory_id=("Uint32", t.allocation_info.memory_id),
            memory_offset_low=("Uint32", off & 0xFFFFFFFF),
            memory_offset_high=("Uint32", off >> 32),
        )
    if t.extra_tensor_info is not None:
        e = t.extra_tensor_info
        name = w.string(e.fully_qualified_name)
        extra = w.table(
            "ExtraTensorInfo",
            mutable_data_segments_idx=("Uint64", e.mutable_data_segments_idx),
            fully_qualified_name=("off", name),
            location=("Int8", e.location),
            device_type=("Int8", e.device_type),
            device_index=("Int8", e.device_index),
        )
    return w.table(
        "Tensor",
        scalar_type=("Int8", int(t.scalar_type)),
        storage_offset=("Int32", t.storage_offset),
        sizes=("off", sizes),
        dim_order=("off", dim_order),
        requires_grad=("Bool", bool(t.requires_grad)),
        data_buffer_idx=("Uint32", t.data_buffer_idx),
        allocation_info=("off", alloc),
        layout=("Int8", t.layout),
        shape_dynamism=("Int8", t.shape_dynamism),
        extra_tensor_info=("off", extra),
    )


def _instruction(w: _Builder, ins: P.Instruction) -> int:
    if isinstance(ins, P.KernelCall):
        inner = w.table("KernelCall", op_index=("Int32", ins.op_index), args=("off", w.ints("i", ins.args)))
    elif isinstance(ins, P.DelegateCall):
        inner = w.table(
            "DelegateCall", delegate_index=("Int32", ins.delegate_index), args=("off", w.ints("i", ins.args))
        )
    elif isinstance(ins, P.MoveCall):
        inner = w.table("MoveCall", move_from=("Int32", ins.move_from), move_to=("Int32", ins.move_to))
    elif isinstance(ins, P.JumpFalseCall):
        inner = w.table(
            "JumpFalseCall",
            cond_value_index=("Int32", ins.cond_value_index),
            destination_instruction=("Int32", ins.destination_instruction),
        )
    elif isinstance(ins, P.FreeCall):
        inner = w.table("FreeCall", value_index=("Int32", ins.value_index))
    else:
        raise TypeError(f"not an instruction: {ins!r}")
    return w.table("Instruction", instr_args_type=("Uint8", P.instruction_tag(ins)), instr_args=("off", inner))


def _chain(w: _Builder, c: P.Chain, stacktrace: bool) -> int:
    inputs, outputs = w.ints("i", c.inputs), w.ints("i", c.outputs)
    instrs = w.offsets([_instruction(w, i) for i in c.instructions])
    stack = None
    if stacktrace and c.stacktrace is not None:
        lists = []
        for frames in c.stacktrace:
            fr = []
            for f in frames:
                fn, nm, ctx = w.string(f.filename), w.string(f.name), w.string(f.context)
                fr.append(
                    w.table(
                        "Frame",
                        filename=("off", fn),
                        lineno=("Int32", f.lineno),
                        name=("off", nm),
                        context=("off", ctx),
                    )
                )
            lists.append(w.table("FrameList", items=("off", w.offsets(fr))))
        stack = w.offsets(lists)
    return w.table(
        "Chain",
        inputs=("off", inputs),
        outputs=("off", outputs),
        instructions=("off", instrs),
        stacktrace=("off", stack),
    )


def _delegate(w: _Builder, d: P.BackendDelegate, seg_map: Dict[int, int]) -> int:
    ident = w.string(d.id)
    index = d.processed.index
    if d.processed.location == 1:
        index = seg_map[index]
    ref = w.table("BackendDelegateDataReference", location=("Int8", d.processed.location), index=("Uint32", index))
    specs = []
    for cs in d.compile_specs:
        key = w.string(cs.key)
        specs.append(w.table("CompileSpec", key=("off", key), value=("off", w.raw_vector(bytes(cs.value), 1, 1))))
    return w.table(
        "BackendDelegate", id=("off", ident), processed=("off", ref), compile_specs=("off", w.offsets(specs))
    )


def _plan(w: _Builder, p: P.ExecutionPlan, seg_map: Dict[int, int], stacktrace: bool) -> int:
    name = w.string(p.name)
    meta = None
    if p.container_meta_type is not None:
        inp, out = w.string(p.container_meta_type[0]), w.string(p.container_meta_type[1])
        meta = w.table("ContainerMetadata", encoded_inp_str=("off", inp), encoded_out_str=("off", out))
    values = w.offsets([_evalue(w, v) for v in p.values])
    inputs, outputs = w.ints("i", p.inputs), w.ints("i", p.outputs)
    chains = w.offsets([_chain(w, c, stacktrace) for c in p.chains])
    ops = []
    for op in p.operators:
        n, o = w.string(op.name), w.string(op.overload)
        ops.append(w.table("Operator", name=("off", n), overload=("off", o)))
    operators = w.offsets(ops)
    delegates = w.offsets([_delegate(w, d, seg_map) for d in p.delegates])
    sizes = w.ints("q", p.non_const_buffer_sizes)
    devices = None
    if p.non_const_buffer_device is not None:
        devices = w.offsets(
            [
                w.table(
                    "NonConstBufferDevice",
                    buffer_idx=("Int32", d.buffer_idx),
                    device_type=("Int8", d.device_type),
                    device_index=("Int8", d.device_index),
                )
                for d in p.non_const_buffer_device
            ]
        )
    return w.table(
        "ExecutionPlan",
        name=("off", name),
        container_meta_type=("off", meta),
        values=("off", values),
        inputs=("off", inputs),
        outputs=("off", outputs),
        chains=("off", chains),
        operators=("off", operators),
        delegates=("off", delegates),
        non_const_buffer_sizes=("off", sizes),
        non_const_buffer_device=("off", devices),
    )


def _subsegment(w: _Builder, s: P.SubsegmentOffsets, seg_map: Dict[int, int]) -> int:
    offs = w.ints("Q", s.offsets)
    return w.table("SubsegmentOffsets", segment_index=("Uint32", seg_map[s.segment_index]), offsets=("off", offs))


def _layout_segments(
    program: P.Program, consts: List[bytes], in_segment: bool, alignment: int
) -> Tuple[List[P.DataSegment], bytes, Dict[int, int], Optional[List[int]]]:
    """New segment table and data: the constant segment first (if any), then the program's others."""
    blobs: List[bytes] = []
    const_offsets = None
    if in_segment and consts:
        data, const_offsets = bytearray(), []
        for i, c in enumerate(consts):
            const_offsets.append(len(data))
            data += c
            if i + 1 < len(consts):  # like ExecuTorch: the last entry ends at the segment's size
                data += bytes(_align(len(data), P.TENSOR_ALIGNMENT) - len(data))
        blobs.append(bytes(data))
    old_const = (
        program.constant_segment.segment_index
        if program.constant_segment is not None and program.constant_segment.offsets
        else None
    )
    seg_map: Dict[int, int] = {}
    for i, seg in enumerate(program.segments):
        if i == old_const:
            continue
        seg_map[i] = len(blobs)
        blobs.append(bytes(program.segment_data[seg.offset : seg.offset + seg.size]))
    segments, out = [], bytearray()
    for blob in blobs:
        out += bytes(_align(len(out), alignment) - len(out))
        segments.append(P.DataSegment(offset=len(out), size=len(blob)))
        out += blob
    return segments, bytes(out), seg_map, const_offsets


def write_program(
    program: P.Program, constants: str = "segment", segment_alignment: int = 16, stacktrace: bool = False
) -> bytes:
    """Serialize `program`. constants: "segment" (eh00 + constant segment; the default, because ExecuTorch's
    runtime no longer accepts the deprecated constant_buffer path) or "inline" (constant_buffer).
    stacktrace: write the chains' source frames (ExecuTorch's `emit_stacktrace`, off by default there too).
    No runtime reads them; they are a tenth of int8 KWS's metadata (absolute paths of the model's and torch's
    files), in the flash of every firmware."""
    if constants not in ("inline", "segment"):
        raise ValueError(f"constants must be 'inline' or 'segment', not {constants!r}")
    if segment_alignment % P.TENSOR_ALIGNMENT:
        raise ValueError(f"segment_alignment {segment_alignment} is not a multiple of {P.TENSOR_ALIGNMENT}")
    consts = program.constants()
    in_segment = constants == "segment"
    segments, seg_data, seg_map, const_offsets = _layout_segments(program, consts, in_segment, segment_alignment)

    w = _Builder()
    plans = w.offsets([_plan(w, p, seg_map, stacktrace) for p in program.execution_plan])
    buffers = (
        []
        if in_segment
        else [w.table("Buffer", storage=("off", w.raw_vector(c, 1, P.TENSOR_ALIGNMENT))) for c in consts]
    )
    const_buf = w.offsets(buffers)
    delegate_data = w.offsets(
        [
            w.table("BackendDelegateInlineData", data=("off", w.raw_vector(bytes(d), 1, P.TENSOR_ALIGNMENT)))
            for d in program.backend_delegate_data
        ]
    )
    segs = w.offsets([w.table("DataSegment", offset=("Uint64", s.offset), size=("Uint64", s.size)) for s in segments])
    const_seg = None
    if const_offsets is not None:
        const_seg = _subsegment(w, P.SubsegmentOffsets(0, const_offsets), {0: 0})
    mutable = named = None
    if program.mutable_data_segments is not None:
        mutable = w.offsets([_subsegment(w, s, seg_map) for s in program.mutable_data_segments])
    if program.named_data is not None:
        entries = []
        for nd in program.named_data:
            key = w.string(nd.key)
            entries.append(w.table("NamedData", key=("off", key), segment_index=("Uint32", seg_map[nd.segment_index])))
        named = w.offsets(entries)
    root = w.table(
        "Program",
        version=("Uint32", program.version),
        execution_plan=("off", plans),
        constant_buffer=("off", const_buf),
        backend_delegate_data=("off", delegate_data),
        segments=("off", segs),
        constant_segment=("off", const_seg),
        mutable_data_segments=("off", mutable),
        named_data=("off", named),
    )
    w.b.Finish(root, file_identifier=P.FILE_IDENTIFIER)
    fb = bytes(w.b.Output())
    if not segments:
        return fb
    return _with_extended_header(fb, seg_data, segment_alignment)


def _with_extended_header(fb: bytes, seg_data: bytes, segment_alignment: int) -> bytes:
    # The header goes right after the file identifier. Flatbuffer offsets are relative except the root
    # offset at byte 0, so only that moves; 32 bytes keep the 16-byte alignment of the data intact.
    program_size = len(fb) + HEADER_LENGTH
    base = _align(program_size, segment_alignment)
    header = P.EXTENDED_HEADER_MAGIC + struct.pack("<IQQQ", HEADER_LENGTH, program_size, base, len(seg_data))
    root = struct.unpack_from("<I", fb, 0)[0] + HEADER_LENGTH
    return b"".join([struct.pack("<I", root), fb[4:8], header, fb[8:], bytes(base - program_size), seg_data])


def write_program_file(program: P.Program, path, **kw) -> Path:
    """Write atomically: a reader never sees a half-written .pte (temporary file, then rename)."""
    path = Path(path)
    data = write_program(program, **kw)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path
