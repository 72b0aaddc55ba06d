"""The in-memory form of a `.pte` program: one dataclass per table of ExecuTorch's Program schema.

The writer (`writer.py`) turns a `Program` into flatbuffer bytes and the reader (`reader.py`) turns
bytes back into a `Program`; the lowering builds one and `inspect` prints one. Field names follow the
schema (`schema/program.fbs`) so that a reader of either can find the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import List, Optional, Union

FILE_IDENTIFIER = b"ET12"
EXTENDED_HEADER_MAGIC = b"eh00"
SCHEMA_VERSION = 0
TENSOR_ALIGNMENT = 16  # constant data and planned tensors: the schema's force_align and our arena alignment


class ScalarType(IntEnum):
    BYTE = 0
    CHAR = 1
    SHORT = 2
    INT = 3
    LONG = 4
    HALF = 5
    FLOAT = 6
    DOUBLE = 7
    BOOL = 11
    QINT8 = 12
    QUINT8 = 13
    QINT32 = 14
    BFLOAT16 = 15
    QUINT4X2 = 16
    QUINT2X4 = 17
    BITS16 = 22
    FLOAT8E5M2 = 23
    FLOAT8E4M3FN = 24
    FLOAT8E5M2FNUZ = 25
    FLOAT8E4M3FNUZ = 26
    UINT16 = 27
    UINT32 = 28
    UINT64 = 29


@dataclass(frozen=True)
class DType:
    """One scalar type of the schema: the one table that lowering, inspect, the interpreter, the host
    runner and the C runtime's `mx_dtype` enum (held to it by a test) agree on."""

    code: ScalarType
    name: str  # torch's and, where it has one, numpy's name
    short: str  # as `mcu-export inspect` prints it, e.g. f32
    size: int  # bytes per element; packed sub-byte types count one byte (an upper bound, never used)
    runtime: bool  # the C runtime reads and writes tensors of this type (runtime_c/include/mx/value.h)


DTYPES = (
    DType(ScalarType.BYTE, "uint8", "u8", 1, True),
    DType(ScalarType.CHAR, "int8", "i8", 1, True),
    DType(ScalarType.SHORT, "int16", "i16", 2, True),
    DType(ScalarType.INT, "int32", "i32", 4, True),
    DType(ScalarType.LONG, "int64", "i64", 8, True),
    DType(ScalarType.HALF, "float16", "f16", 2, True),
    DType(ScalarType.FLOAT, "float32", "f32", 4, True),
    DType(ScalarType.DOUBLE, "float64", "f64", 8, True),
    DType(ScalarType.BOOL, "bool", "b8", 1, True),
    DType(ScalarType.QINT8, "qint8", "qi8", 1, False),
    DType(ScalarType.QUINT8, "quint8", "qu8", 1, False),
    DType(ScalarType.QINT32, "qint32", "qi32", 4, False),
    DType(ScalarType.BFLOAT16, "bfloat16", "bf16", 2, False),
    DType(ScalarType.QUINT4X2, "quint4x2", "qu4x2", 1, False),
    DType(ScalarType.QUINT2X4, "quint2x4", "qu2x4", 1, False),
    DType(ScalarType.BITS16, "bits16", "b16", 2, False),
    DType(ScalarType.FLOAT8E5M2, "float8_e5m2", "f8e5m2", 1, False),
    DType(ScalarType.FLOAT8E4M3FN, "float8_e4m3fn", "f8e4m3fn", 1, False),
    DType(ScalarType.FLOAT8E5M2FNUZ, "float8_e5m2fnuz", "f8e5m2fnuz", 1, False),
    DType(ScalarType.FLOAT8E4M3FNUZ, "float8_e4m3fnuz", "f8e4m3fnuz", 1, False),
    DType(ScalarType.UINT16, "uint16", "u16", 2, False),
    DType(ScalarType.UINT32, "uint32", "u32", 4, False),
    DType(ScalarType.UINT64, "uint64", "u64", 8, False),
)
DTYPE_OF = {d.code: d for d in DTYPES}
ELEMENT_SIZE = {d.code: d.size for d in DTYPES}


@dataclass
class AllocationDetails:
    memory_id: int  # index into ExecutionPlan.non_const_buffer_sizes (0 is reserved, arenas start at 1)
    memory_offset: int  # byte offset in that arena (written as low/high 32-bit halves)


@dataclass
class ExtraTensorInfo:
    mutable_data_segments_idx: int = 0
    fully_qualified_name: Optional[str] = None
    location: int = 0  # 0 SEGMENT, 1 EXTERNAL
    device_type: int = 0  # 0 CPU
    device_index: int = 0


@dataclass
class Tensor:
    scalar_type: ScalarType
    sizes: List[int]
    dim_order: List[int]
    data_buffer_idx: int = 0  # >0: constant data (constant_buffer / constant segment)
    allocation_info: Optional[AllocationDetails] = None  # planned (mutable) tensors
    storage_offset: int = 0
    requires_grad: bool = False
    layout: int = 0
    shape_dynamism: int = 0
    extra_tensor_info: Optional[ExtraTensorInfo] = None

    @property
    def numel(self) -> int:
        n = 1
        for s in self.sizes:
            n *= s
        return n

    @property
    def nbytes(self) -> int:
        return self.numel * ELEMENT_SIZE[ScalarType(self.scalar_type)]


@dataclass
class Null:
    pass


@dataclass
class Int:
    int_val: int


@dataclass
class Bool:
    bool_val: bool


@dataclass
class Double:
    double_val: float


@dataclass
class String:
    string_val: str


@dataclass
class IntList:
    items: List[int]  # EValue indices of Int values (ExecuTorch boxes list items)


@dataclass
class DoubleList:
    items: List[float]


@dataclass
class BoolList:
    items: List[bool]


@dataclass
class TensorList:
    items: List[int]  # EValue indices


@dataclass
class OptionalTensorList:
    items: List[int]  # EValue indices; -1 means None


EValue = Union[Null, Int, Bool, Double, Tensor, String, IntList, DoubleList, BoolList, TensorList, OptionalTensorList]

# Union discriminants, in schema order (KernelTypes). NONE = 0 is flatbuffers' own.
KERNEL_TYPES = [Null, Int, Bool, Double, Tensor, String, IntList, DoubleList, BoolList, TensorList, OptionalTensorList]


def kernel_type_tag(value: EValue) -> int:
    return KERNEL_TYPES.index(type(value)) + 1


@dataclass
class Operator:
    name: str  # e.g. "aten::convolution"
    overload: str  # e.g. "out"

    @property
    def qualified(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name


@dataclass
class KernelCall:
    op_index: int
    args: List[int]  # EValue indices: the schema's arguments in order, then its returns


@dataclass
class DelegateCall:
    delegate_index: int
    args: List[int]


@dataclass
class MoveCall:
    move_from: int
    move_to: int


@dataclass
class JumpFalseCall:
    cond_value_index: int
    destination_instruction: int


@dataclass
class FreeCall:
    value_index: int


Instruction = Union[KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall]
INSTRUCTION_TYPES = [KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall]


def instruction_tag(instr: Instruction) -> int:
    return INSTRUCTION_TYPES.index(type(instr)) + 1


@dataclass
class Frame:
    filename: str
    lineno: int
    name: str
    context: str = ""


@dataclass
class Chain:
    inputs: List[int]
    outputs: List[int]
    instructions: List[Instruction]
    stacktrace: Optional[List[List[Frame]]] = None  # one frame list per instruction


INLINE, SEGMENT = 0, 1  # BackendDelegateDataReference.location: program.backend_delegate_data or a segment


@dataclass
class BackendDelegateDataReference:
    location: int  # INLINE or SEGMENT
    index: int


@dataclass
class CompileSpec:
    key: str
    value: bytes


@dataclass
class BackendDelegate:
    id: str
    processed: BackendDelegateDataReference
    compile_specs: List[CompileSpec] = field(default_factory=list)


@dataclass
class ExecutionPlan:
    name: str
    values: List[EValue]
    inputs: List[int]
    outputs: List[int]
    chains: List[Chain]
    operators: List[Operator]
    non_const_buffer_sizes: List[int]  # [0, arena1_bytes, ...]: index 0 is reserved by the schema
    delegates: List[BackendDelegate] = field(default_factory=list)
    container_meta_type: Optional[tuple] = None  # (encoded_inp_str, encoded_out_str)
    non_const_buffer_device: Optional[List["NonConstBufferDevice"]] = None


@dataclass
class NonConstBufferDevice:
    buffer_idx: int
    device_type: int = 0
    device_index: int = 0


@dataclass
class DataSegment:
    offset: int
    size: int


@dataclass
class SubsegmentOffsets:
    segment_index: int
    offsets: List[int]


@dataclass
class NamedData:
    key: str
    segment_index: int


@dataclass
class Program:
    execution_plan: List[ExecutionPlan]
    # constant_buffer[0] is the empty placeholder the schema reserves; Tensor.data_buffer_idx points here.
    constant_buffer: List[bytes] = field(default_factory=lambda: [b""])
    backend_delegate_data: List[bytes] = field(default_factory=list)
    segments: List[DataSegment] = field(default_factory=list)
    constant_segment: Optional[SubsegmentOffsets] = None
    version: int = SCHEMA_VERSION
    # Bytes after the flatbuffer (segment data), as read from or to be written to the file.
    segment_data: bytes = b""
    mutable_data_segments: Optional[List[SubsegmentOffsets]] = None
    named_data: Optional[List[NamedData]] = None

    def method(self, name: str = "forward") -> ExecutionPlan:
        for plan in self.execution_plan:
            if plan.name == name:
                return plan
        raise KeyError(name)

    def constant_bytes(self, data_buffer_idx: int) -> bytes:
        """Constant data of a tensor, wherever the file keeps it (inline buffers or the constant segment)."""
        if self.constant_segment is not None and self.constant_segment.offsets:
            seg = self.segments[self.constant_segment.segment_index]
            offs = self.constant_segment.offsets
            start = offs[data_buffer_idx]
            end = offs[data_buffer_idx + 1] if data_buffer_idx + 1 < len(offs) else seg.size
            return self.segment_data[seg.offset + start : seg.offset + end]
        return self.constant_buffer[data_buffer_idx]

    @property
    def num_constants(self) -> int:
        """Entries of the constant table (index 0 being the reserved placeholder), wherever it lives."""
        if self.constant_segment is not None and self.constant_segment.offsets:
            return len(self.constant_segment.offsets)
        return len(self.constant_buffer)

    def constants(self) -> List[bytes]:
        return [self.constant_bytes(i) for i in range(self.num_constants)]
