"""Semantic mutations of .pte programs: decode with our reader, change one meaningful thing, re-encode with
our writer. Unlike the byte-level corpus of test_runtime_malformed.py, every mutant here is a well-formed
flatbuffer whose meaning is wrong (a constant written, two live tensors sharing bytes, an impossible
quantization, a kernel whose work has no bound), so only the loader's semantic checks can refuse it.

    e = Edit(pte)
    call = e.call("aten::relu.out")
    e.retarget(call, e.arg(call, "out"), e.new_const_like(e.arg(call, "out")))
    data = e.build()

Edits never change a value that other instructions share (scalars are deduplicated by the exporter): a new
argument is a new EValue. A planned tensor that the edit leaves unreferenced becomes a Null value, so the
mutant differs from its source in the one intended way and not also by a stray tensor whose lifetime
(never used: none) a plan checker might read as live at the inputs; so does a tensor list nothing names
(a return list an edit replaced), whose items may be gone.

Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

import copy
from typing import List, Optional, Sequence

import numpy as np

from mcu_export import dtypes
from mcu_export.ops.table import BY_QUALIFIED
from mcu_export.pte import program as P
from mcu_export.pte.reader import read_program
from mcu_export.pte.writer import write_program

ALIGN = P.TENSOR_ALIGNMENT


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


class Edit:
    """A decoded program under edit: its first method, its constants as a list (index = data_buffer_idx)."""

    def __init__(self, pte: bytes):
        self.program = read_program(pte)
        self.plan = self.program.execution_plan[0]
        self.consts: List[bytes] = self.program.constants()

    # ---- reading ----

    @property
    def values(self) -> List[P.EValue]:
        return self.plan.values

    @property
    def instructions(self) -> List[P.Instruction]:
        return self.plan.chains[0].instructions

    def qualified(self, call: P.KernelCall) -> str:
        return self.plan.operators[call.op_index].qualified

    def calls(self, op: str) -> List[P.KernelCall]:
        return [i for i in self.instructions if isinstance(i, P.KernelCall) and self.qualified(i) == op]

    def call(self, op: str, nth: int = 0) -> P.KernelCall:
        found = self.calls(op)
        if len(found) <= nth:
            raise KeyError(f"no call {nth} of {op} (the program has {len(found)})")
        return found[nth]

    def position(self, call: P.KernelCall) -> int:
        return next(i for i, ins in enumerate(self.instructions) if ins is call)

    def pos(self, call: P.KernelCall, name: str) -> int:
        return BY_QUALIFIED[self.qualified(call)].arg_index(name)

    def arg(self, call: P.KernelCall, name: str) -> int:
        return call.args[self.pos(call, name)]

    def tensor(self, index: int) -> P.Tensor:
        t = self.values[index]
        assert isinstance(t, P.Tensor), f"value {index} is {type(t).__name__}, not a Tensor"
        return t

    def items(self, call: P.KernelCall, name: str) -> List[int]:
        """Items of an IntList argument, as ints."""
        lst = self.values[self.arg(call, name)]
        return [self.values[k].int_val for k in lst.items]

    # ---- adding values ----

    def add(self, value: P.EValue) -> int:
        self.values.append(value)
        return len(self.values) - 1

    def set_arg(self, call: P.KernelCall, name: str, value: P.EValue) -> int:
        """Points argument `name` of `call` at a new value; returns its index."""
        index = self.add(value)
        call.args[self.pos(call, name)] = index
        return index

    def set_int(self, call: P.KernelCall, name: str, v: int) -> int:
        return self.set_arg(call, name, P.Int(int(v)))

    def int_list(self, items: Sequence[int]) -> P.IntList:
        return P.IntList([self.add(P.Int(int(v))) for v in items])

    def set_ints(self, call: P.KernelCall, name: str, items: Sequence[int]) -> int:
        return self.set_arg(call, name, self.int_list(items))

    def new_const(self, array: np.ndarray, dim_order: Optional[Sequence[int]] = None) -> int:
        """A constant tensor holding `array` (logical order), laid out in `dim_order`."""
        order = list(dim_order) if dim_order is not None else list(range(array.ndim))
        self.consts.append(np.ascontiguousarray(np.transpose(array, order)).tobytes())
        code = P.ScalarType(int(dtypes.from_numpy(array.dtype)))
        return self.add(P.Tensor(code, list(array.shape), order, data_buffer_idx=len(self.consts) - 1))

    def new_const_like(self, index: int, fill: int = 0) -> int:
        """A constant with the shape, dtype and dim order of tensor `index`."""
        t = self.tensor(index)
        dt = dtypes.numpy_dtype(int(t.scalar_type))
        return self.new_const(np.full(t.sizes, fill, dt), t.dim_order)

    def set_const_data(self, index: int, array: np.ndarray) -> None:
        """New bytes for constant tensor `index`, in a new buffer entry (another tensor may share the old)."""
        t = copy.deepcopy(self.tensor(index))
        self.consts.append(np.ascontiguousarray(np.transpose(array, t.dim_order)).tobytes())
        t.data_buffer_idx = len(self.consts) - 1
        self.values[index] = t

    def const_array(self, index: int) -> np.ndarray:
        t = self.tensor(index)
        dt = dtypes.numpy_dtype(int(t.scalar_type))
        mem = [t.sizes[d] for d in t.dim_order]
        raw = np.frombuffer(self.consts[t.data_buffer_idx], dt, count=int(np.prod(mem, dtype=np.int64)))
        return np.transpose(raw.reshape(mem), np.argsort(t.dim_order)).copy()

    def new_planned(self, shape: Sequence[int], dtype, dim_order: Optional[Sequence[int]] = None) -> int:
        """A planned tensor in fresh bytes at the end of arena 1 (the arena grows): overlaps nothing."""
        order = list(dim_order) if dim_order is not None else list(range(len(shape)))
        code = P.ScalarType(int(dtypes.from_numpy(np.dtype(dtype))))
        t = P.Tensor(code, list(shape), order)
        offset = _aligned(self.plan.non_const_buffer_sizes[1])
        t.allocation_info = P.AllocationDetails(1, offset)
        self.plan.non_const_buffer_sizes[1] = offset + _aligned(t.nbytes)
        return self.add(t)

    # ---- changing tensors ----

    def retarget(self, call: P.KernelCall, old: int, new: int) -> None:
        """Every mention of tensor `old` in `call` (its args, and the tensor lists it names: out and return
        lists) becomes `new`; lists are copied, never changed in place (another call may share them)."""
        for k, a in enumerate(call.args):
            v = self.values[a]
            if a == old:
                call.args[k] = new
            elif isinstance(v, (P.TensorList, P.OptionalTensorList)) and old in v.items:
                call.args[k] = self.add(type(v)([new if i == old else i for i in v.items]))

    def edit_tensor(self, index: int, **fields) -> P.Tensor:
        """Changes fields of tensor `index` in place (sizes, dim_order, scalar_type, allocation_info)."""
        t = self.tensor(index)
        for k, v in fields.items():
            setattr(t, k, copy.deepcopy(v))
        return t

    def place_over(self, index: int, other: int, delta: int = 0) -> None:
        """Plans tensor `index` at tensor `other`'s bytes (plus `delta`); the arena grows if it must, so that
        the overlap is the only fault."""
        at = self.tensor(other).allocation_info
        t = self.tensor(index)
        t.allocation_info = P.AllocationDetails(at.memory_id, at.memory_offset + delta)
        sizes = self.plan.non_const_buffer_sizes
        sizes[at.memory_id] = max(sizes[at.memory_id], _aligned(at.memory_offset + delta + t.nbytes))

    def grow(self, index: int, shape: Sequence[int], dim_order: Optional[Sequence[int]] = None) -> None:
        """Gives planned tensor `index` a new shape in fresh bytes at the end of the arena."""
        t = self.tensor(index)
        t.sizes = list(shape)
        if dim_order is not None:
            t.dim_order = list(dim_order)
        offset = _aligned(self.plan.non_const_buffer_sizes[1])
        t.allocation_info = P.AllocationDetails(1, offset)
        self.plan.non_const_buffer_sizes[1] = offset + _aligned(t.nbytes)

    # ---- writing ----

    def _referenced(self) -> set:
        seen = set(self.plan.inputs) | set(self.plan.outputs)
        for ins in self.instructions:
            if isinstance(ins, (P.KernelCall, P.DelegateCall)):
                args = ins.args
            elif isinstance(ins, P.MoveCall):
                args = [ins.move_from, ins.move_to]
            else:
                continue
            for a in args:
                seen.add(a)
                v = self.values[a]
                if isinstance(v, (P.TensorList, P.OptionalTensorList)):
                    seen.update(i for i in v.items if i >= 0)
        return seen

    def build(self) -> bytes:
        used = self._referenced()
        for i, v in enumerate(self.values):
            planned = isinstance(v, P.Tensor) and v.data_buffer_idx == 0
            if (planned or isinstance(v, (P.TensorList, P.OptionalTensorList))) and i not in used:
                self.values[i] = P.Null()
        prog = self.program
        assert len(prog.segments) <= 1 and not prog.backend_delegate_data, "programs with delegates: not handled"
        prog.constant_buffer = list(self.consts)
        prog.constant_segment = None
        prog.segments, prog.segment_data = [], b""
        return write_program(prog)


def const_overrun(e: Edit, index: int, extra_elements: int) -> None:
    """Makes constant `index` claim `extra_elements` more elements along its first dim's worth of memory, so
    its extent passes its own buffer entry into the next entry's bytes (which exist: it must not be last)."""
    t = e.tensor(index)
    assert t.data_buffer_idx + 1 < len(e.consts), "the overrun must land in a neighbour's bytes"
    inner = t.numel // t.sizes[0]
    rows = -(-extra_elements // inner)
    t.sizes = [t.sizes[0] + rows] + list(t.sizes[1:])
    nbytes = t.nbytes
    own = len(e.consts[t.data_buffer_idx])
    following = sum(len(c) for c in e.consts[t.data_buffer_idx + 1 :])
    assert own < nbytes <= own + following, (own, nbytes, following)
