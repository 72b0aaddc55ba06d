"""The exporter's count of a method's metadata (what mx_count_meta counts in runtime_c/src/meta_pool.c): a firmware's
static pool is sized from it by the runtime's own layout (codegen/model/mx_model_memory.c.j2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Sequence

from mcu_export.errors import UsageError
from mcu_export.pte import program as P


@dataclass(frozen=True)
class PoolCounts:
    """What mx_count_meta counts (runtime_c/src/meta_pool.c; fields as in mx_meta_counts): the template
    turns them into bytes with the runtime's own layout (runtime_c/include/mx/meta_pool.def) and sizeof."""

    values: int
    tensors: int
    ints: int
    doubles: int
    tensor_refs: int
    instrs: int
    args: int
    ops: int
    inputs: int
    outputs: int
    io: int
    arenas: int
    delegates: int
    delegate_state: int  # bytes: each delegate's backend state_bytes rounded up to 8
    # the most one call needs (runtime_c/src/call_frame.c): its arguments, the tensors they name (list items too) ...
    frame_args: int
    frame_tensors: int
    frame_ints: int
    frame_doubles: int
    frame_refs: int
    largest_arena: int  # bytes: whether the load-only regions fit there (MX_META_LOAD_IN_ARENA)


# Delegates the exporter writes that some boards' firmware cannot run, and what to do instead.
_NO_RUNTIME_HERE = {
    "EthosUBackend": "this board's firmware has no Ethos-U driver (its board file gives no npu_base): "
    "re-export with --backend cortex-m to run the model on the CPU",
}


def _frame(values: Sequence[P.EValue], calls: Sequence) -> Dict[str, int]:
    """The largest needs of one call's frame, each taken over the calls apart (as mx_count_meta does)."""
    most = dict.fromkeys(("frame_args", "frame_tensors", "frame_ints", "frame_doubles", "frame_refs"), 0)
    for call in calls:
        need = dict.fromkeys(most, 0)
        need["frame_args"] = len(call.args)
        for index in call.args:
            v = values[index] if 0 <= index < len(values) else None
            if isinstance(v, P.Tensor):
                need["frame_tensors"] += 1
            elif isinstance(v, P.IntList):
                need["frame_ints"] += len(v.items)
            elif isinstance(v, P.DoubleList):
                need["frame_doubles"] += len(v.items)
            elif isinstance(v, (P.TensorList, P.OptionalTensorList)):
                need["frame_tensors"] += len(v.items)
                need["frame_refs"] += len(v.items)
        most = {k: max(most[k], need[k]) for k in most}
    return most


def pool_counts(plan: P.ExecutionPlan, backends: Sequence = ()) -> PoolCounts:
    """The counts of `plan` for a build that links `backends` (host_runtime.LinkedBackend); a delegate
    whose id none of them has is an error, as loading it would be."""
    values = plan.values
    instrs = plan.chains[0].instructions if plan.chains else []
    state = {b.id: b.state_bytes for b in backends}
    for k, d in enumerate(plan.delegates):
        if d.id not in state:
            hint = _NO_RUNTIME_HERE.get(d.id, "")
            raise UsageError(
                f"delegate {k} ({d.id}): no backend for it in this build (linked: {', '.join(sorted(state)) or 'none'})"
                + (f"; {hint}" if hint else "")
            )
    calls = [i for i in instrs if isinstance(i, (P.KernelCall, P.DelegateCall))]
    return PoolCounts(
        values=len(values),
        tensors=sum(isinstance(v, P.Tensor) for v in values),
        ints=sum(len(v.items) for v in values if isinstance(v, P.IntList)),
        doubles=sum(len(v.items) for v in values if isinstance(v, P.DoubleList)),
        tensor_refs=sum(len(v.items) for v in values if isinstance(v, (P.TensorList, P.OptionalTensorList))),
        instrs=len(instrs),
        args=sum(len(i.args) for i in calls),
        ops=len(plan.operators),
        inputs=len(plan.inputs),
        outputs=len(plan.outputs),
        io=len(plan.inputs) + len(plan.outputs),
        arenas=len(plan.non_const_buffer_sizes),
        delegates=len(plan.delegates),
        delegate_state=sum((state[d.id] + 7) // 8 * 8 for d in plan.delegates),
        **_frame(values, calls),
        largest_arena=max([s for s in plan.non_const_buffer_sizes[1:] if s > 0], default=0),
    )
