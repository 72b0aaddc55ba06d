"""Narrower kernels a model's firmware links in place of an op's own, where every call of the op in the model
allows it: the kernel table points the op at the narrower kernel's functions (its argument kinds stay the op's),
and the project takes that kernel's sources instead.

- `_to_dim_order_copy` whose every call keeps its dtype (a layout change: int8 models' NCHW input made
  channels-last) runs `_clone_dim_order`'s kernel, which lays out its arguments alike (asserted in
  runtime_c/kernels/portable/util/mx_dim_order_copy.c) and copies without converting: the conversion
  (util/mx_convert.c, ~1 KB) and, without a double-precision FPU, the soft-float double it computes in
  (~2.5 KB) stay out of the firmware. The clone kernel's check refuses a dtype change.

Host builds (mx_run) and the serving firmware, which run any program, link every op's own kernel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict

from mcu_export.pte import program as P

if TYPE_CHECKING:  # the op table imports torch, which building firmware otherwise does not
    from mcu_export.ops.table import OpDef

_TO_DIM_ORDER = "dim_order_ops::_to_dim_order_copy.out"
_CLONE_DIM_ORDER = "dim_order_ops::_clone_dim_order.out"


def _keeps_dtype(plan: P.ExecutionPlan, ins: P.KernelCall, op: OpDef) -> bool:
    try:
        src, out = (plan.values[ins.args[op.arg_index(name)]] for name in ("self", "out"))
        return isinstance(src, P.Tensor) and isinstance(out, P.Tensor) and src.scalar_type == out.scalar_type
    except (IndexError, KeyError):
        return False


def kernel_variants(plan: P.ExecutionPlan) -> Dict[str, OpDef]:
    """Qualified op name -> the op-table entry whose kernel this plan's firmware links for it."""
    from mcu_export.ops.table import BY_QUALIFIED

    copy = BY_QUALIFIED[_TO_DIM_ORDER]
    calls = [
        ins
        for ins in (plan.chains[0].instructions if plan.chains else [])
        if isinstance(ins, P.KernelCall) and plan.operators[ins.op_index].qualified == _TO_DIM_ORDER
    ]
    if calls and all(_keeps_dtype(plan, ins, copy) for ins in calls):
        return {_TO_DIM_ORDER: BY_QUALIFIED[_CLONE_DIM_ORDER]}
    return {}
