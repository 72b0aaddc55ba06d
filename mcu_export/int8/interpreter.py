"""run_reference: a lowered Program executed instruction by instruction in Python — the bit-exact
reference of what the C runtime computes.

cortex_m int8 kernels run on the numpy references (`interpreter_ops`); every other op (fp32
fallbacks, views, copies) runs on torch's own out-variant kernel with the same arguments. Tensors are
held as logical numpy arrays; a tensor's dim order only matters to kernels that address memory
directly (pad), which receive it.

Planned tensors are also written into emulated arenas, because a program may read a tensor that no
instruction writes: ExecuTorch's emitter drops a static view_copy (e.g. a flatten) and gives the view
the same arena bytes as its source, so the view is read from the arena as the C runtime would.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, cast

import numpy as np
import torch

from mcu_export import dtypes
from mcu_export.errors import UsageError
from mcu_export.lower.args import split_call_args
from mcu_export.ops.table import BY_QUALIFIED
from mcu_export.pte import program as pte


def _load_constant(program: pte.Program, t: pte.Tensor) -> np.ndarray:
    raw = np.frombuffer(program.constant_bytes(t.data_buffer_idx), dtype=dtypes.numpy_dtype(t.scalar_type))
    physical = [t.sizes[d] for d in t.dim_order]
    data = raw[: int(np.prod(physical, dtype=np.int64))].reshape(physical)
    return np.ascontiguousarray(data.transpose(np.argsort(t.dim_order))) if t.dim_order else data.copy()


def _schema(qualified: str):
    op = BY_QUALIFIED.get(qualified)
    if op is not None:
        return op.schema()
    raise UsageError(f"the reference interpreter has no kernel for {qualified}")


class _Machine:
    def __init__(self, program: pte.Program, method: str):
        self.program = program
        self.plan = program.method(method)
        self.tensors: Dict[int, np.ndarray] = {}
        self.arenas: Dict[int, bytearray] = {}

    def _arena_span(self, t: pte.Tensor) -> memoryview:
        a = t.allocation_info
        arena = self.arenas.setdefault(a.memory_id, bytearray())
        end = a.memory_offset + t.numel * dtypes.numpy_dtype(t.scalar_type).itemsize
        if len(arena) < end:
            arena.extend(bytes(end - len(arena)))
        return memoryview(arena)[a.memory_offset : end]

    def _from_arena(self, t: pte.Tensor) -> np.ndarray:
        """The tensor as its arena bytes hold it (memory order -> logical)."""
        physical = [t.sizes[d] for d in t.dim_order] if t.dim_order else list(t.sizes)
        data = np.frombuffer(bytes(self._arena_span(t)), dtype=dtypes.numpy_dtype(t.scalar_type)).reshape(physical)
        return np.ascontiguousarray(data.transpose(np.argsort(t.dim_order))) if t.dim_order else data.copy()

    def value(self, index: int) -> Any:
        v = self.plan.values[index]
        if isinstance(v, pte.Tensor):
            if index not in self.tensors:
                if v.data_buffer_idx > 0:
                    self.tensors[index] = _load_constant(self.program, v)
                elif v.allocation_info is not None:  # an alias of a written tensor, or a scratch buffer
                    return self._from_arena(v)
                else:
                    return np.zeros(v.sizes, dtype=dtypes.numpy_dtype(v.scalar_type))
            return self.tensors[index]
        if isinstance(v, pte.Null):
            return None
        if isinstance(v, pte.Int):
            return v.int_val
        if isinstance(v, pte.Double):
            return v.double_val
        if isinstance(v, pte.Bool):
            return v.bool_val
        if isinstance(v, pte.IntList):
            return [self.plan.values[i].int_val for i in v.items]
        if isinstance(v, pte.TensorList):
            return [self.value(i) for i in v.items]
        if isinstance(v, pte.DoubleList):
            return list(v.items)
        if isinstance(v, pte.String):
            return v.string_val
        raise UsageError(f"value {index} of kind {type(v).__name__} is not supported by the interpreter")

    def out_indices(self, index: int) -> List[int]:
        v = self.plan.values[index]
        return list(v.items) if isinstance(v, pte.TensorList) else [index]

    def store(self, index: int, array) -> None:
        t = cast(pte.Tensor, self.plan.values[index])
        array = np.asarray(array)
        if list(array.shape) != list(t.sizes):
            raise UsageError(f"kernel wrote shape {list(array.shape)} into a tensor of shape {list(t.sizes)}")
        self.tensors[index] = array.astype(dtypes.numpy_dtype(t.scalar_type), copy=False)
        if t.allocation_info is not None and t.data_buffer_idx <= 0:
            memory = np.transpose(self.tensors[index], t.dim_order) if t.dim_order else self.tensors[index]
            self._arena_span(t)[:] = np.ascontiguousarray(memory).tobytes()

    def step(self, call: pte.KernelCall) -> None:
        op = self.plan.operators[call.op_index]
        qualified = op.qualified
        schema = _schema(qualified)
        indices, outs = split_call_args(schema, call.args)
        outs = [i for o in outs for i in self.out_indices(o)]  # a `Tensor(a!)[] out` lists its tensors
        named: Dict[str, Any] = {name: self.value(index) for name, index in indices.items()}
        for name in ("input", "self"):
            if name in indices and isinstance(self.plan.values[indices[name]], pte.Tensor):
                named["_dim_order"] = list(self.plan.values[indices[name]].dim_order)
        reference = BY_QUALIFIED[qualified].reference_fn() if qualified in BY_QUALIFIED else None
        if reference is not None:
            self.store(outs[0], reference(named, list(self.plan.values[outs[0]].sizes)))
        elif qualified == "dim_order_ops::_to_dim_order_copy.out":
            self.store(outs[0], named["self"])
        else:
            self.torch_call(op, schema, named, outs)

    def delegate_call(self, call: pte.DelegateCall, reference: DelegateReference) -> None:
        entry = self.plan.delegates[call.delegate_index]
        processed = self.program.backend_delegate_data[entry.processed.index]
        arrays: List[Optional[np.ndarray]] = []
        for index in call.args:
            t = self.plan.values[index]
            if isinstance(t, pte.Tensor):
                logical = np.asarray(self.value(index))
                arrays.append(np.ascontiguousarray(logical.transpose(t.dim_order)) if t.dim_order else logical)
            else:
                arrays.append(None)
        for position, memory in reference(call.delegate_index, entry, processed, arrays).items():
            t = cast(pte.Tensor, self.plan.values[call.args[position]])
            order = list(t.dim_order) if t.dim_order else list(range(len(t.sizes)))
            physical = [t.sizes[d] for d in order]
            self.store(call.args[position], np.asarray(memory).reshape(physical).transpose(np.argsort(order)))

    def torch_call(self, op: pte.Operator, schema, named: Dict[str, Any], outs: List[int]) -> None:
        ns, name = op.name.split("::")
        fn = getattr(getattr(getattr(torch.ops, ns), name), op.overload)
        positional, keywords = [], {}
        out_tensors: List[torch.Tensor] = []
        for arg in schema.arguments:
            if arg.kwarg_only and arg.alias_info is not None and arg.alias_info.is_write:
                listed = arg.type.kind() == "ListType"
                mine = outs[len(out_tensors) :] if listed else [outs[len(out_tensors)]]
                made = [self._empty(cast(pte.Tensor, self.plan.values[i])) for i in mine]
                out_tensors.extend(made)
                value = made if listed else made[0]
            else:
                value = _to_torch(named[arg.name], str(arg.type))
            if arg.kwarg_only:
                keywords[arg.name] = value
            else:
                positional.append(value)
        with torch.no_grad():
            fn(*positional, **keywords)
        for index, t in zip(outs, out_tensors):
            self.store(index, t.numpy())

    @staticmethod
    def _empty(t: pte.Tensor) -> torch.Tensor:
        return torch.empty(t.sizes, dtype=dtypes.torch_dtype(t.scalar_type))


def _to_torch(value, type_name: str):
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value).copy())
    if isinstance(value, list) and value and isinstance(value[0], np.ndarray):
        return [torch.from_numpy(np.ascontiguousarray(v).copy()) for v in value]
    if "ScalarType" in type_name and isinstance(value, int):
        return dtypes.torch_dtype(value)
    return value


# A delegate's reference: (delegate index, its BackendDelegate, processed bytes, each argument's tensor in
# memory order or None) -> {argument position: tensor it writes, in memory order}.
DelegateReference = Callable[[int, pte.BackendDelegate, bytes, List[Optional[np.ndarray]]], Dict[int, np.ndarray]]


def run_reference(
    program: pte.Program, inputs: Sequence, method: str = "forward", delegate: Optional[DelegateReference] = None
) -> List[np.ndarray]:
    """Runs `program` on `inputs` (tensors or arrays, in order) and returns its outputs as numpy arrays;
    DelegateCalls run on `delegate` (e.g. mcu_export.ethosu.reference: TOSA's reference model)."""
    machine = _Machine(program, method)
    plan = machine.plan
    if len(inputs) != len(plan.inputs):
        raise UsageError(f"the program takes {len(plan.inputs)} inputs, got {len(inputs)}")
    for index, x in zip(plan.inputs, inputs):
        array = x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
        machine.store(index, array)
    for chain in plan.chains:
        for instr in chain.instructions:
            if isinstance(instr, pte.DelegateCall) and delegate is not None:
                machine.delegate_call(instr, delegate)
            elif not isinstance(instr, pte.KernelCall):
                raise UsageError(f"the interpreter runs kernel calls only, found {type(instr).__name__}")
            else:
                machine.step(instr)
    return [np.array(machine.value(i)) for i in plan.outputs]
