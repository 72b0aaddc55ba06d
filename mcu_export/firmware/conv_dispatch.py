"""model/mx_model_cmsis_nn.c: which CMSIS-NN convolution variants (and fully connected requantizations) a
model's firmware links.

CMSIS-NN's wrappers (arm_convolve_wrapper_s8, arm_depthwise_conv_wrapper_s8) pick a variant at run time
and so link all of them. The exporter knows every convolution's shapes: it picks the variants here with
the wrappers' rules (mcu_export.int8.lower.scratch.conv_kind / depthwise_kind, twins of
runtime_c/kernels/cortex_m/util/mx_cm_conv_dispatch.c) and renders mx_cm_conv_s8 / mx_cm_dw_conv_s8
calling only those. With our CMSIS-NN (cmsis_nn_kernels/), whose 3x3 and "opt" depthwise kernels are one
channel-multiplier-1 body that again picks at run time, runs of output rows or pixel by pixel
(arm_nn_dw_conv_runs_fit), mx_cm_dw_conv_s8 calls the path the model's layers take (dw_paths). A fully connected layer's per-tensor and per-channel paths are separate CMSIS-NN
functions: mx_cm_fc_s8 / mx_cm_fc_per_channel_s8 call the ones the model's layers use. Host builds define the
same functions as the wrappers and both requantizations (mx_cm_conv_dispatch_wrappers.c).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, List, Optional, Tuple

from mcu_export.boards import Board
from mcu_export.pte import program as P
from mcu_export.templates import templates

if TYPE_CHECKING:  # the op table imports torch, which building firmware otherwise does not
    from mcu_export.ops.table import OpDef

# The CMSIS-NN function of each variant mx_cm_conv_kind_of / mx_cm_dw_conv_kind_of can pick.
CONV_FUNCTIONS = {
    "1x1_fast": ("MX_CM_CONV_1X1_FAST", "arm_convolve_1x1_s8_fast"),
    "1x1": ("MX_CM_CONV_1X1", "arm_convolve_1x1_s8"),
    "1_x_n": ("MX_CM_CONV_1_X_N", "arm_convolve_1_x_n_s8"),
    "general": ("MX_CM_CONV_GENERAL", "arm_convolve_s8"),
}
DW_FUNCTIONS = {
    "3x3": ("MX_CM_DW_3X3", "arm_depthwise_conv_3x3_s8"),
    "opt": ("MX_CM_DW_OPT", "arm_depthwise_conv_s8_opt"),
    "general": ("MX_CM_DW_GENERAL", "arm_depthwise_conv_s8"),
}
DW_PATHS = ("runs", "pixels")  # arm_nn_dw_conv_ch_mult1_runs_s8 / _pixels_s8
FC_KINDS = ("per_tensor", "per_channel")  # one requantize multiplier, or one per output channel
_FC_OPS = ("cortex_m::quantized_linear.out",)
_CONV_OPS = ("cortex_m::quantized_conv2d.out", "cortex_m::quantized_conv2d_nhwc.out")
_DW_OPS = ("cortex_m::quantized_depthwise_conv2d.out", "cortex_m::quantized_depthwise_conv2d_nhwc.out")


def _arg(values, ins: P.KernelCall, op: OpDef, name: str):
    return values[ins.args[op.arg_index(name)]]


def conv_variants(plan: P.ExecutionPlan, isa: str) -> Tuple[List[str], List[str]]:
    """(conv kinds, depthwise kinds) the plan's convolutions run on `isa`, as the CMSIS-NN wrappers would
    choose them; every kind of an op whose arguments do not read as expected (the firmware then still
    runs it, and the kernel reports what is wrong)."""
    from mcu_export.int8.lower.scratch import conv_kind, depthwise_kind
    from mcu_export.ops.table import BY_QUALIFIED

    conv, dw = set(), set()
    values = plan.values
    for ins in plan.chains[0].instructions if plan.chains else []:
        if not isinstance(ins, P.KernelCall):
            continue
        op = plan.operators[ins.op_index].qualified
        if op not in _CONV_OPS + _DW_OPS:
            continue
        nhwc = op.endswith("_nhwc.out")
        arg = functools.partial(_arg, values, ins, BY_QUALIFIED[op])
        try:
            x, w = arg("input"), arg("weight")
            stride, padding, dilation = (
                [values[i].int_val for i in arg(k).items] for k in ("stride", "padding", "dilation")
            )
            stride, padding, dilation = ((v * 2 if len(v) == 1 else v) for v in (stride, padding, dilation))
            n, c, h, wd = x.sizes if not nhwc else (x.sizes[0], x.sizes[3], x.sizes[1], x.sizes[2])
            if op in _CONV_OPS:
                conv.add(conv_kind((n, h, wd, c), tuple(w.sizes), stride, padding, dilation))
            else:
                ch_mult = arg("depth_multiplier").int_val
                dw.add(
                    depthwise_kind(
                        isa, (n, h, wd, c), tuple(w.sizes[1:3]), (n, 0, 0, w.sizes[3]), ch_mult, padding, dilation
                    )
                )
        except (AttributeError, IndexError, TypeError, ValueError):
            (conv if op in _CONV_OPS else dw).update(CONV_FUNCTIONS if op in _CONV_OPS else DW_FUNCTIONS)
    return sorted(conv, key=list(CONV_FUNCTIONS).index), sorted(dw, key=list(DW_FUNCTIONS).index)


def dw_path(isa: str, channels: int, kernel_hw: Tuple[int, int], dilation_w: int) -> str:
    """The path of our channel-multiplier-1 depthwise body: twin of arm_nn_dw_conv_runs_fit
    (cmsis_nn_kernels/include/arm_nnsupportfunctions.h)."""
    if isa not in ("mve", "dsp") or kernel_hw[0] * kernel_hw[1] > 49:
        return "pixels"
    if isa == "mve":
        return "runs" if channels >= 8 else "pixels"
    return "runs" if channels >= 2 and dilation_w == 1 else "pixels"


def dw_paths(plan: P.ExecutionPlan, isa: str) -> List[str]:
    """The DW_PATHS the plan's 3x3 and "opt" depthwise convolutions take on `isa` (our CMSIS-NN); both for a
    call whose arguments do not read as expected."""
    from mcu_export.int8.lower.scratch import depthwise_kind
    from mcu_export.ops.table import BY_QUALIFIED

    paths = set()
    values = plan.values
    for ins in plan.chains[0].instructions if plan.chains else []:
        if not isinstance(ins, P.KernelCall) or plan.operators[ins.op_index].qualified not in _DW_OPS:
            continue
        op = plan.operators[ins.op_index].qualified
        arg = functools.partial(_arg, values, ins, BY_QUALIFIED[op])
        try:
            x, w = arg("input"), arg("weight")
            padding, dilation = ([values[i].int_val for i in arg(k).items] for k in ("padding", "dilation"))
            padding, dilation = ((v * 2 if len(v) == 1 else v) for v in (padding, dilation))
            n, c, h, wd = x.sizes if not op.endswith("_nhwc.out") else (x.sizes[0], x.sizes[3], x.sizes[1], x.sizes[2])
            kernel_hw = (w.sizes[1], w.sizes[2])
            kind = depthwise_kind(
                isa, (n, h, wd, c), kernel_hw, (n, 0, 0, w.sizes[3]), arg("depth_multiplier").int_val, padding, dilation
            )
            if kind in ("3x3", "opt"):
                paths.add(dw_path(isa, c, kernel_hw, dilation[1]))
        except (AttributeError, IndexError, TypeError, ValueError):
            paths.update(DW_PATHS)
    return sorted(paths, key=DW_PATHS.index)


def fc_variants(plan: P.ExecutionPlan) -> List[str]:
    """The requantizations (FC_KINDS) the plan's fully connected layers use: per_tensor where a layer has one
    multiplier; both for a call whose arguments do not read as expected."""
    from mcu_export.ops.table import BY_QUALIFIED

    kinds = set()
    for ins in plan.chains[0].instructions if plan.chains else []:
        if not isinstance(ins, P.KernelCall) or plan.operators[ins.op_index].qualified not in _FC_OPS:
            continue
        op = BY_QUALIFIED[plan.operators[ins.op_index].qualified]
        try:
            kinds.add(
                FC_KINDS[0] if len(_arg(plan.values, ins, op, "requantize_multipliers").items) == 1 else FC_KINDS[1]
            )
        except (AttributeError, IndexError, TypeError, ValueError):
            kinds.update(FC_KINDS)
    return sorted(kinds, key=FC_KINDS.index)


def render_conv_dispatch(plan: P.ExecutionPlan, board: Board, ours: bool = True) -> Optional[str]:
    """model/mx_model_cmsis_nn.c: mx_cm_conv_s8 / mx_cm_dw_conv_s8 / mx_cm_fc_s8 / mx_cm_fc_per_channel_s8
    calling only this model's variants; None when the model has no convolution or fully connected layer.
    `ours`: the kernels are cmsis_nn_kernels/ (not an installed CMSIS-NN), whose depthwise paths it calls."""
    ops = {op.qualified for op in plan.operators}
    has_conv, has_dw, has_fc = bool(ops & set(_CONV_OPS)), bool(ops & set(_DW_OPS)), bool(ops & set(_FC_OPS))
    if not (has_conv or has_dw or has_fc):
        return None
    conv, dw = conv_variants(plan, board.cpu.isa)
    env = templates().overlay(trim_blocks=True, lstrip_blocks=True)
    return env.get_template("model/mx_model_cmsis_nn.c.j2").render(
        has_conv=has_conv,
        has_dw=has_dw,
        has_fc=has_fc,
        fc_kinds=fc_variants(plan),
        conv_kinds=conv,
        dw_kinds=dw,
        conv_functions=[CONV_FUNCTIONS[k] for k in conv],
        dw_functions=[DW_FUNCTIONS[k] for k in dw],
        dw_paths=dw_paths(plan, board.cpu.isa) if ours else None,
    )
