"""Narrower kernels a model's firmware links in place of an op's own, where every call of the op in the model
allows it: the kernel table points the op at the narrower kernel's functions (its argument kinds stay the op's),
and the project takes that kernel's sources instead.

- `_to_dim_order_copy` whose every call keeps its dtype (a layout change: int8 models' NCHW input made
  channels-last) runs `_clone_dim_order`'s kernel, which lays out its arguments alike (asserted in
  runtime_c/kernels/portable/util/mx_dim_order_copy.c) and copies without converting: the conversion
  (util/mx_convert.c, ~1 KB) and, without a double-precision FPU, the soft-float double it computes in
  (~2.5 KB) stay out of the firmware. The clone kernel's check refuses a dtype change.

Likewise helpers that an op's kernel reaches only through a weak symbol (`optional_helpers`): a model's firmware
compiles one only when a call of the model may take its path.

- `aten::convolution.out`'s whole-line depthwise 3x3 (util/mx_conv2d_f32_dw_lines.c, 2-2.6 KB): a float32 depthwise
  3x3 at stride 1 (or 2, but on MVE), undilated, padding 0 or 1 on an axis, NCHW input. Without it the general loop nest's tiles run
  those lines, with the same bits.

Host builds (mx_run) and the serving firmware, which run any program, link every op's own kernel and every helper.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, FrozenSet

from mcu_export.ops.overlap import int_list
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


_CONVOLUTION = "aten::convolution.out"
_DW_LINES = "portable/util/mx_conv2d_f32_dw_lines.c"
_LIST_ARGS = ("stride", "padding", "dilation")
# op -> its optional helpers (below runtime_c/kernels/)
OPTIONAL_HELPERS: Dict[str, FrozenSet[str]] = {_CONVOLUTION: frozenset({_DW_LINES})}


def _takes_dw_lines(plan: P.ExecutionPlan, ins: P.KernelCall, op: OpDef, isa: str) -> bool:
    """What mx_conv2d_f32.c's nest_init asks of a line (`line3`), as far as the program says it: a wider answer
    links the helper for nothing, a narrower one runs the tiles instead."""
    try:
        x, w, groups = (plan.values[ins.args[op.arg_index(n)]] for n in ("input", "weight", "groups"))
        stride, padding, dilation = (int_list(plan.values, ins.args[op.arg_index(n)]) for n in _LIST_ARGS)
    except (IndexError, KeyError):
        return False
    if not (isinstance(x, P.Tensor) and isinstance(w, P.Tensor) and isinstance(groups, P.Int)):
        return False
    nchw = not x.dim_order or list(x.dim_order) == sorted(x.dim_order)
    return (
        x.scalar_type == P.ScalarType.FLOAT
        and nchw
        and len(x.sizes) == 4
        and list(w.sizes[1:]) == [1, 3, 3]
        and groups.int_val == x.sizes[1] == w.sizes[0]
        and len(stride) == 2
        and set(stride) <= ({1} if isa == "mve" else {1, 2})  # MX_CONV2D_F32_LINE_MAX_STRIDE
        and dilation == [1, 1]
        and any(p in (0, 1) for p in padding)
    )


def optional_helpers(plan: P.ExecutionPlan, isa: str) -> FrozenSet[str]:
    """The optional helpers (OPTIONAL_HELPERS) whose path a call of this plan may take on a core of `isa` (a
    board's cpu.isa: scalar, dsp or mve)."""
    from mcu_export.ops.table import BY_QUALIFIED

    conv = BY_QUALIFIED[_CONVOLUTION]
    for ins in plan.chains[0].instructions if plan.chains else []:
        if isinstance(ins, P.KernelCall) and plan.operators[ins.op_index].qualified == _CONVOLUTION:
            if _takes_dw_lines(plan, ins, conv, isa):
                return frozenset({_DW_LINES})
    return frozenset()
