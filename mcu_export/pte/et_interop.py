"""ExecuTorch's Python `Program` object (from its emitter or deserializer) -> our `Program`.

Duck-typed: nothing here imports executorch. Tests use it to compare what ExecuTorch reads from our
files with what we meant to write, and to feed ExecuTorch-emitted programs to our writer.
"""

from __future__ import annotations

from typing import Any, Callable, Dict

from mcu_export.pte import program as P

_SIMPLE: Dict[str, Callable[[Any], P.EValue]] = {
    "Null": lambda v: P.Null(),
    "Int": lambda v: P.Int(v.int_val),
    "Bool": lambda v: P.Bool(bool(v.bool_val)),
    "Double": lambda v: P.Double(v.double_val),
    "String": lambda v: P.String(v.string_val),
    "IntList": lambda v: P.IntList(list(v.items)),
    "DoubleList": lambda v: P.DoubleList(list(v.items)),
    "BoolList": lambda v: P.BoolList([bool(x) for x in v.items]),
    "TensorList": lambda v: P.TensorList(list(v.items)),
    "OptionalTensorList": lambda v: P.OptionalTensorList(list(v.items)),
}


def _tensor(t) -> P.Tensor:
    alloc = None
    if t.allocation_info is not None:
        a = t.allocation_info
        alloc = P.AllocationDetails(a.memory_id, a.memory_offset_low | (a.memory_offset_high << 32))
    extra = None
    if getattr(t, "extra_tensor_info", None) is not None:
        e = t.extra_tensor_info
        extra = P.ExtraTensorInfo(
            e.mutable_data_segments_idx,
            e.fully_qualified_name,
            int(e.location),
            int(getattr(e, "device_type", 0)),
            int(getattr(e, "device_index", 0)),
        )
    return P.Tensor(
        scalar_type=P.ScalarType(int(t.scalar_type)),
        sizes=list(t.sizes),
        dim_order=list(t.dim_order),
        data_buffer_idx=t.data_buffer_idx,
        allocation_info=alloc,
        storage_offset=t.storage_offset,
        requires_grad=bool(t.requires_grad),
        layout=t.layout,
        shape_dynamism=int(t.shape_dynamism),
        extra_tensor_info=extra,
    )


def _value(ev) -> P.EValue:
    v = ev.val
    kind = type(v).__name__
    return _tensor(v) if kind == "Tensor" else _SIMPLE[kind](v)


def _instruction(ins) -> P.Instruction:
    a = ins.instr_args
    kind = type(a).__name__
    if kind == "KernelCall":
        return P.KernelCall(a.op_index, list(a.args))
    if kind == "DelegateCall":
        return P.DelegateCall(a.delegate_index, list(a.args))
    if kind == "MoveCall":
        return P.MoveCall(a.move_from, a.move_to)
    if kind == "JumpFalseCall":
        return P.JumpFalseCall(a.cond_value_index, a.destination_instruction)
    return P.FreeCall(a.value_index)


def _chain(c) -> P.Chain:
    stack = None
    if c.stacktrace is not None:
        stack = [[P.Frame(f.filename, f.lineno, f.name, f.context or "") for f in fl.items] for fl in c.stacktrace]
    return P.Chain(list(c.inputs), list(c.outputs), [_instruction(i) for i in c.instructions], stack)


def _plan(p) -> P.ExecutionPlan:
    meta = p.container_meta_type
    devices = getattr(p, "non_const_buffer_device", None)
    return P.ExecutionPlan(
        name=p.name,
        values=[_value(v) for v in p.values],
        inputs=list(p.inputs),
        outputs=list(p.outputs),
        chains=[_chain(c) for c in p.chains],
        operators=[P.Operator(o.name, o.overload) for o in p.operators],
        non_const_buffer_sizes=list(p.non_const_buffer_sizes),
        delegates=[
            P.BackendDelegate(
                d.id,
                P.BackendDelegateDataReference(int(d.processed.location), d.processed.index),
                [P.CompileSpec(cs.key, bytes(cs.value)) for cs in d.compile_specs],
            )
            for d in p.delegates
        ],
        container_meta_type=None if meta is None else (meta.encoded_inp_str, meta.encoded_out_str),
        non_const_buffer_device=None
        if devices is None
        else [P.NonConstBufferDevice(d.buffer_idx, int(d.device_type), d.device_index) for d in devices],
    )


def from_executorch_program(et_program) -> P.Program:
    """Plans, inline constants and inline delegate data of ExecuTorch's Program dataclass.

    Segment-backed data is not carried over: ExecuTorch's deserializer moves the constant segment back
    into `constant_buffer` before handing the program out, which is the form this expects.
    """
    return P.Program(
        execution_plan=[_plan(p) for p in et_program.execution_plan],
        constant_buffer=[bytes(b.storage) for b in et_program.constant_buffer],
        backend_delegate_data=[bytes(d.data) for d in et_program.backend_delegate_data],
        version=et_program.version,
    )
