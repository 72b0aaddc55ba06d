"""Single-op .pte programs for the cortex_m kernels, built by hand with mcu_export.pte.program and written
with write_program: the test names the op's arguments in schema order and this lays them out as ExecuTorch's
emitter does (Int/Double/Bool/Null/IntList values, constant tensors in the constant buffer, planned tensors
in arena 1), then appends the out tensor and the return.

    p = OpProgram("cortex_m::quantized_mul.out")
    x = p.input(np.int8 array)                 # logical shape; dim_order=(0, 2, 3, 1) for channels-last
    pte = p.build([x, p.int_(3), p.const(y), ...], out=p.planned((2, 8), np.int8))

A chain of ops: OpProgram() then p.call(qualified, args, out) per instruction and p.build_chain([outputs]).

Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np

from mcu_export import dtypes
from mcu_export.pte import program as P
from mcu_export.pte.writer import write_program

NCHW_CHANNELS_LAST = (0, 2, 3, 1)
# What mx_run says for the two refusals the kernels' checks give most.
BAD_VALUE = "a kernel argument has an invalid value"
BAD_SHAPE = "a kernel received tensors of inconsistent shapes"


def memory_bytes(array: np.ndarray, dim_order: Sequence[int]) -> bytes:
    """The tensor's bytes in its dim order (contiguous for the identity order)."""
    return np.ascontiguousarray(np.transpose(array, dim_order)).tobytes()


class OpProgram:
    def __init__(self, qualified: Optional[str] = None):
        self.qualified = qualified
        self.calls: List[P.KernelCall] = []
        self.operators: List[str] = []
        self.values: List[P.EValue] = []
        self.constants: List[bytes] = [b""]
        self.inputs: List[int] = []
        self.arena = 0

    def _add(self, value: P.EValue) -> int:
        self.values.append(value)
        return len(self.values) - 1

    def _tensor(self, dtype, shape, dim_order, **kw) -> int:
        order = list(dim_order) if dim_order is not None else list(range(len(shape)))
        code = dtypes.from_numpy(np.dtype(dtype))
        return self._add(P.Tensor(P.ScalarType(int(code)), list(shape), order, **kw))

    def planned(self, shape: Sequence[int], dtype, dim_order: Optional[Sequence[int]] = None) -> int:
        """A tensor in arena 1 (16-byte aligned slot), e.g. the out tensor or a scratch buffer."""
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        offset = self.arena
        self.arena += max(16, -(-nbytes // 16) * 16)
        return self._tensor(dtype, shape, dim_order, allocation_info=P.AllocationDetails(1, offset))

    def alias(self, index: int, shape: Sequence[int], dim_order: Optional[Sequence[int]] = None) -> int:
        """Another tensor over the same arena bytes (a view: e.g. NHWC bytes seen as channels-last NCHW)."""
        t = self.values[index]
        order = list(dim_order) if dim_order is not None else list(range(len(shape)))
        return self._add(P.Tensor(t.scalar_type, list(shape), order, allocation_info=t.allocation_info))

    def input(self, array: np.ndarray, dim_order: Optional[Sequence[int]] = None) -> int:
        idx = self.planned(array.shape, array.dtype, dim_order)
        self.inputs.append(idx)
        return idx

    def const(self, array: np.ndarray, dim_order: Optional[Sequence[int]] = None) -> int:
        array = np.asarray(array)
        order = tuple(dim_order) if dim_order is not None else tuple(range(array.ndim))
        self.constants.append(memory_bytes(array, order))
        return self._tensor(array.dtype, array.shape, order, data_buffer_idx=len(self.constants) - 1)

    def int_(self, v: int) -> int:
        return self._add(P.Int(int(v)))

    def double(self, v: float) -> int:
        return self._add(P.Double(float(v)))

    def bool_(self, v: bool) -> int:
        return self._add(P.Bool(bool(v)))

    def null(self) -> int:
        return self._add(P.Null())

    def ints(self, items: Sequence[int]) -> int:
        return self._add(P.IntList([self.int_(i) for i in items]))

    def call(self, qualified: str, args: Sequence[int], out: int) -> int:
        """One kernel call: the schema's arguments, then the out tensor and the return (out again)."""
        if qualified not in self.operators:
            self.operators.append(qualified)
        self.calls.append(P.KernelCall(self.operators.index(qualified), [*args, out, out]))
        return out

    def program(self, outputs: Sequence[int]) -> P.Program:
        ops = [P.Operator(*q.rsplit(".", 1)) for q in self.operators]
        plan = P.ExecutionPlan(
            name="forward",
            values=self.values,
            inputs=list(self.inputs),
            outputs=list(outputs),
            chains=[P.Chain(inputs=list(self.inputs), outputs=list(outputs), instructions=list(self.calls))],
            operators=ops,
            non_const_buffer_sizes=[0, max(self.arena, 16)],
        )
        return P.Program(execution_plan=[plan], constant_buffer=self.constants)

    def build_chain(self, outputs: Sequence[int]) -> bytes:
        return write_program(self.program(outputs))

    def build(self, args: Sequence[int], out: int) -> bytes:
        """The single-op program of the op named at construction."""
        self.call(self.qualified, args, out)
        return self.build_chain([out])


def pte_runner(tmp: Path):
    """run(pte_bytes, inputs) -> the first output, from the host C runtime (one mx_run build for all calls)."""
    from mcu_export.host_runtime import build_host_runner
    from mcu_export.runners.host import run_pte

    runner = build_host_runner()
    count = [0]

    def go(pte: bytes, inputs):
        count[0] += 1
        path = Path(tmp) / f"p{count[0]}.pte"
        path.write_bytes(pte)
        return run_pte(path, inputs, runner=runner)[0]

    return go
