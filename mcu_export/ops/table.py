"""The op table: every operator mcu-export knows, declared once.

Each entry names the operator exactly as a `.pte` writes it (`aten::convolution` + overload `out`), the
core-ATen targets that lower to it, the dtypes its kernels accept and the C kernel symbol that
implements it. The argument schema is the out-variant's own schema in torch (`schema_of`), which is
what ExecuTorch's emitter and our lowering both follow. The C kernel table, the export-time support
check and the docs' op list are all generated from this list.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Dict, Optional, Tuple

if TYPE_CHECKING:  # torch only when a schema is read: `mcu-export ops|run|inspect` list the table without it
    import torch


@dataclass(frozen=True)
class OpDef:
    name: str  # namespace::name as in the .pte Operator table
    overload: str  # overload as in the .pte Operator table
    aten: Tuple[str, ...]  # core-ATen call targets (str(node.target)) that lower to this op
    dtypes: Tuple[str, ...] = ("float32",)  # dtypes of the (first) output that the kernel computes
    # The out-variant's schema as text, for ops whose library torch may not have loaded (ExecuTorch's
    # dim_order_ops exist only after `import executorch.exir`); parsed when torch.ops lacks the op.
    schema_text: Optional[str] = None
    # Kernel folder runtime_c/kernels/<library>/: "portable" (plain C) or "cortex_m" (int8 kernels that call
    # CMSIS-NN functions; builds that link them also compile cmsis_nn_kernels/ or an installed CMSIS-NN).
    library: str = "portable"
    # Non-empty for an op that a .pte never names (ExecuTorch's portable library has no kernel for it): a
    # pass decomposes it into these ops, and the loader fusion `fused_by` (runtime_c/src/fuse_*.c) turns
    # them back into one call of this op's kernel. A kernel table that links the kernel lists the fusion.
    written_as: Tuple[str, ...] = ()
    fused_by: str = ""
    # Value ranges of int and int[] arguments, (argument, class of ARG_RANGES): the loader checks them with
    # the tags, before the kernel's own check (every item of an int[]).
    ranges: Tuple[Tuple[str, str], ...] = ()
    # "module:function" of the bit-exact Python reference of the kernel (the int8 interpreter runs it);
    # empty for most portable ops, whose reference is torch's own out variant.
    reference: str = ""
    # "module:function" giving the bytes of the kernel's scratch tensor per ISA (the twins of CMSIS-NN's
    # *_get_buffer_size, bound to the C by tests/test_int8_scratch.py); empty for ops without scratch.
    scratch: str = ""

    @property
    def qualified(self) -> str:
        return f"{self.name}.{self.overload}"

    @property
    def kernel(self) -> str:
        """C symbol of the kernel: mx_k_<namespace>_<name>_<overload>."""
        ns, base = self.name.split("::")
        return f"mx_k_{ns}_{base.lstrip('_')}_{self.overload}"

    def schema(self) -> "torch.FunctionSchema":
        return _schema_of(self)

    def arg_names(self) -> Tuple[str, ...]:
        """The names of a KernelCall's arguments, in order: the schema's (kwarg-only outs included), then
        `ret` for the return value that repeats the out tensor (or lists the outs)."""
        from mcu_export.ops.signatures import signature

        return tuple(a.name for a in signature(self).args) + ("ret",)

    def reference_fn(self) -> Optional[Callable]:
        return _resolve(self.reference)

    def scratch_fn(self) -> Optional[Callable]:
        return _resolve(self.scratch)

    def arg_index(self, name: str) -> int:
        """Position of argument `name` in a KernelCall's args: the one place that says it."""
        names = self.arg_names()
        if name not in names:
            raise KeyError(f"{self.qualified} has no argument {name!r} (it has: {', '.join(names)})")
        return names.index(name)


def _resolve(where: str) -> Optional[Callable]:
    """A "module:function" of the table, imported on first use (the table stays import-light)."""
    if not where:
        return None
    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


@functools.lru_cache(maxsize=None)
def _schema_of(op: OpDef) -> "torch.FunctionSchema":
    import torch

    ns, base = op.name.split("::")
    try:
        return getattr(getattr(getattr(torch.ops, ns), base), op.overload)._schema
    except (AttributeError, RuntimeError):
        if op.schema_text is None:
            raise
        return torch._C.parse_schema(op.schema_text)


# The value ranges an int argument may be declared with (OpDef.ranges): name -> (lo, hi), inclusive. CMSIS-NN
# takes int8 zero points, offsets -zero_point, Q31 multipliers, shifts in [-31, 31]; window parameters are
# bounded so that every index stays within int32.
ARG_RANGES: Dict[str, Tuple[int, int]] = {
    "int8": (-128, 127),
    "offset": (-127, 128),
    "shift": (-31, 31),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "nonpositive": (-(1 << 31), 0),
    "window": (1, 1 << 16),
    "padding": (0, 1 << 16),
    "nonnegative": (0, (1 << 31) - 1),
}

# Layout and copy kernels move bytes and so take every dtype the runtime knows.
ANY_DTYPE = ("float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool")


def _op(
    name: str,
    *aten: str,
    overload: str = "out",
    schema_text: Optional[str] = None,
    dtypes: Tuple[str, ...] = ("float32",),
    written_as: Tuple[str, ...] = (),
    fused_by: str = "",
    reference: str = "",
) -> OpDef:
    return OpDef(
        name=name,
        overload=overload,
        aten=tuple(aten),
        schema_text=schema_text,
        dtypes=dtypes,
        written_as=written_as,
        fused_by=fused_by,
        reference=reference,
    )


def _cortex_m(
    schema_text: str, *, dtypes: Tuple[str, ...] = ("int8",), shared: Optional[Dict[str, str]] = None, **ranges: str
) -> OpDef:
    """An op of ExecuTorch's cortex_m library (executorch/backends/cortex_m/ops/operators.yaml), schema
    copied from there: torch knows `cortex_m::` only once executorch's library is imported. No ATen
    target lowers to these; the int8 lowering emits them by name. `ranges` (and `shared`, ranges several ops
    declare alike): argument name -> ARG_RANGES class."""
    name, overload = schema_text.split("(", 1)[0].rsplit(".", 1)
    base = name.split("::")[1]
    return OpDef(
        name=name,
        overload=overload,
        aten=(),
        schema_text=schema_text,
        dtypes=dtypes,
        library="cortex_m",
        ranges=tuple({**(shared or {}), **ranges}.items()),
        reference=f"mcu_export.int8.interpreter_ops:{base}",
        scratch=_SCRATCH.get(base.removesuffix("_nhwc"), ""),
    )


# The scratch-size twins of CMSIS-NN's *_get_buffer_size (mcu_export/int8/lower/scratch.py), per op.
_SCRATCH = {
    base: f"mcu_export.int8.lower.scratch:{fn}"
    for base, fn in (
        ("quantized_conv2d", "conv_scratch"),
        ("quantized_depthwise_conv2d", "depthwise_scratch"),
        ("quantized_avg_pool2d", "avgpool_scratch"),
        ("quantized_linear", "fc_scratch"),
        ("quantized_batch_matmul", "fc_scratch"),
        ("quantized_transpose_conv2d", "transpose_conv_scratch"),
    )
}


_CONV_ARGS = (
    "Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, "
    "int input_offset, int output_offset, Tensor requantize_multipliers, Tensor requantize_shifts, "
    "int activation_min, int activation_max, Tensor scratch, *, Tensor(a!) out) -> Tensor(a!)"
)
_DW_CONV_ARGS = (
    "Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, "
    "int depth_multiplier, int input_offset, int output_offset, Tensor requantize_multipliers, "
    "Tensor requantize_shifts, int activation_min, int activation_max, Tensor scratch, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)
_AVG_POOL_ARGS = (
    "Tensor input, int[] kernel_size, int[] stride, int[] padding, bool ceil_mode, int zero_point, "
    "int multiplier, int shift, Tensor scratch, *, Tensor(a!) out) -> Tensor(a!)"
)
_MAX_POOL_ARGS = (
    "Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, bool ceil_mode, "
    "int input_zero_point, int output_zero_point, int activation_min, int activation_max, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)
_QPARAMS = "float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype"

_QRANGES = dict(zero_point="int32", quant_min="int32", quant_max="int32", dtype="int32")
_CONV_RANGES = dict(
    stride="window",
    padding="padding",
    dilation="window",
    input_offset="offset",
    output_offset="int8",
    activation_min="int8",
    activation_max="int8",
)
_AVG_POOL_RANGES = dict(
    kernel_size="window", stride="window", padding="padding", zero_point="int8", multiplier="int32", shift="shift"
)
_MAX_POOL_RANGES = dict(
    kernel_size="window",
    stride="window",
    padding="padding",
    dilation="window",
    input_zero_point="int8",
    output_zero_point="int8",
    activation_min="int8",
    activation_max="int8",
)

# The int8 kernels (runtime_c/kernels/cortex_m/, README there: argument meanings, layouts, what the
# exporter provides). Each 2-D op comes twice: channels-last [N, C, H, W] and the explicit-layout *_nhwc.
CORTEX_M_OPS: Tuple[OpDef, ...] = (
    _cortex_m(
        f"cortex_m::quantize_per_tensor.out(Tensor input, {_QPARAMS}, *, Tensor(a!) out) -> Tensor(a!)",
        dtypes=("int8", "int16"),
        shared=_QRANGES,
    ),
    _cortex_m(
        f"cortex_m::dequantize_per_tensor.out(Tensor input, {_QPARAMS}, *, Tensor(a!) out) -> Tensor(a!)",
        dtypes=("float32",),
        shared=_QRANGES,
    ),
    _cortex_m(
        "cortex_m::quantized_add.out(Tensor self, int self_zero_point, int self_multiplier, int self_shift, "
        "Tensor other, int other_zero_point, int other_multiplier, int other_shift, int output_zero_point, "
        "int output_multiplier, int output_shift, int activation_min, int activation_max, *, "
        "Tensor(a!) out) -> Tensor(a!)",
        self_zero_point="int8",
        self_multiplier="int32",
        self_shift="shift",
        other_zero_point="int8",
        other_multiplier="int32",
        other_shift="shift",
        output_zero_point="int8",
        output_multiplier="int32",
        output_shift="shift",
        activation_min="int8",
        activation_max="int8",
    ),
    _cortex_m(
        "cortex_m::quantized_mul.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point, "
        "int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)",
        self_zero_point="int8",
        other_zero_point="int8",
        output_zero_point="int8",
        output_multiplier="int32",
        output_shift="shift",
    ),
    _cortex_m(
        "cortex_m::quantized_linear.out(Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum, "
        "int input_offset, int filter_offset, int output_offset, int[] requantize_multipliers, "
        "int[] requantize_shifts, int activation_max, int activation_min, *, Tensor(a!) out) -> Tensor(a!)",
        input_offset="offset",
        filter_offset="offset",
        output_offset="int8",
        requantize_multipliers="int32",
        requantize_shifts="shift",
        activation_max="int8",
        activation_min="int8",
    ),
    _cortex_m(
        "cortex_m::softmax.out(Tensor input, int dim, int input_zero_point, int output_zero_point, "
        "int input_multiplier, int input_shift, int diff_min, *, Tensor(a!) out) -> Tensor(a!)",
        input_zero_point="int8",
        output_zero_point="int8",
        input_multiplier="int32",
        input_shift="shift",
        diff_min="nonpositive",
    ),
    _cortex_m("cortex_m::transpose.out(Tensor input, int[] perm, *, Tensor(a!) out) -> Tensor(a!)"),
    _cortex_m(
        "cortex_m::pad.out(Tensor input, int[] pre_pad, int[] post_pad, int pad_value, *, "
        "Tensor(a!) out) -> Tensor(a!)",
        pad_value="int8",
    ),
    _cortex_m(f"cortex_m::quantized_conv2d.out({_CONV_ARGS}", shared=_CONV_RANGES),
    _cortex_m(f"cortex_m::quantized_conv2d_nhwc.out({_CONV_ARGS}", shared=_CONV_RANGES),
    _cortex_m(
        f"cortex_m::quantized_depthwise_conv2d.out({_DW_CONV_ARGS}", depth_multiplier="window", shared=_CONV_RANGES
    ),
    _cortex_m(
        f"cortex_m::quantized_depthwise_conv2d_nhwc.out({_DW_CONV_ARGS}", depth_multiplier="window", shared=_CONV_RANGES
    ),
    _cortex_m(
        "cortex_m::quantized_transpose_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
        "int[] padding, int[] output_padding, int[] dilation, int input_offset, int output_offset, "
        "Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min, int activation_max, "
        "Tensor scratch, Tensor output_scratch, *, Tensor(a!) out) -> Tensor(a!)",
        output_padding="padding",
        shared=_CONV_RANGES,
    ),
    # Ours (CMSIS-NN has no resize): TOSA's RESIZE BILINEAR on shared qparams, mcu_export/int8/reference/bilinear.py.
    _cortex_m(
        "cortex_m::quantized_upsample_bilinear2d.out(Tensor input, bool align_corners, *, Tensor(a!) out) -> Tensor(a!)"
    ),
    _cortex_m(f"cortex_m::quantized_avg_pool2d.out({_AVG_POOL_ARGS}", shared=_AVG_POOL_RANGES),
    _cortex_m(f"cortex_m::quantized_avg_pool2d_nhwc.out({_AVG_POOL_ARGS}", shared=_AVG_POOL_RANGES),
    _cortex_m(f"cortex_m::quantized_max_pool2d.out({_MAX_POOL_ARGS}", shared=_MAX_POOL_RANGES),
    _cortex_m(f"cortex_m::quantized_max_pool2d_nhwc.out({_MAX_POOL_ARGS}", shared=_MAX_POOL_RANGES),
    _cortex_m("cortex_m::quantized_activation.out(Tensor input, Tensor lut, *, Tensor(a!) out) -> Tensor(a!)"),
    # ExecuTorch's schema: the *_zero_point inputs carry CMSIS-NN offsets (minus the zero points), as its kernel
    # passes them to arm_batch_matmul_s8.
    _cortex_m(
        "cortex_m::quantized_batch_matmul.out(Tensor lhs, int lhs_zero_point, Tensor rhs_transposed, "
        "int rhs_zero_point, int output_zero_point, int output_multiplier, int output_shift, Tensor scratch, *, "
        "Tensor(a!) out) -> Tensor(a!)",
        lhs_zero_point="offset",
        rhs_zero_point="offset",
        output_zero_point="int8",
        output_multiplier="int32",
        output_shift="shift",
    ),
    # Ours (CMSIS-NN has no LayerNorm): the integer arithmetic of mcu_export/int8/reference/layer_norm.py.
    _cortex_m(
        "cortex_m::quantized_layer_norm.out(Tensor input, Tensor weight, Tensor bias, int epsilon, "
        "int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)",
        epsilon="nonnegative",
        output_zero_point="int8",
        output_multiplier="int32",
        output_shift="shift",
    ),
    _cortex_m(
        "cortex_m::quantized_div.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point, "
        "int output_zero_point, float output_scale, *, Tensor(a!) out) -> Tensor(a!)",
        self_zero_point="int8",
        other_zero_point="int8",
        output_zero_point="int8",
    ),
    # Ours (CMSIS-NN has no log-softmax): the integer arithmetic of mcu_export/int8/reference/log_softmax.py.
    _cortex_m(
        "cortex_m::log_softmax.out(Tensor input, int dim, int input_multiplier, int input_shift, int diff_min, *, "
        "Tensor(a!) out) -> Tensor(a!)",
        input_multiplier="int32",
        input_shift="shift",
        diff_min="nonpositive",
    ),
    # Ours (PReLU with a slope per channel): mcu_export/int8/reference/prelu.py.
    _cortex_m(
        "cortex_m::quantized_prelu.out(Tensor input, int channel_dim, int input_zero_point, int output_zero_point, "
        "int positive_multiplier, int positive_shift, Tensor negative_multipliers, Tensor negative_shifts, *, "
        "Tensor(a!) out) -> Tensor(a!)",
        channel_dim="nonnegative",
        input_zero_point="int8",
        output_zero_point="int8",
        positive_multiplier="int32",
        positive_shift="shift",
    ),
    _cortex_m("cortex_m::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"),
    _cortex_m("cortex_m::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"),
)

OPS: Tuple[OpDef, ...] = (
    _op("aten::convolution", "aten.convolution.default"),
    _op("aten::addmm", "aten.addmm.default"),
    _op("aten::mm", "aten.mm.default"),
    _op("aten::bmm", "aten.bmm.default"),
    _op("aten::relu", "aten.relu.default"),
    _op("aten::hardtanh", "aten.hardtanh.default"),
    _op("aten::clamp", "aten.clamp.default"),
    _op("aten::sigmoid", "aten.sigmoid.default"),
    _op("aten::tanh", "aten.tanh.default"),
    # Written as ExecuTorch's portable ops (passes/decompose_hard_activations.py); the loader fuses them back.
    _op(
        "aten::hardswish",
        "aten.hardswish.default",
        written_as=("aten::add.out", "aten::clamp.out", "aten::mul.out", "aten::div.out"),
        fused_by="mx_fuse_hard_ramps",
    ),
    _op(
        "aten::hardsigmoid",
        "aten.hardsigmoid.default",
        written_as=("aten::add.out", "aten::clamp.out", "aten::div.out"),
        fused_by="mx_fuse_hard_ramps",
    ),
    _op("aten::add", "aten.add.Tensor"),
    _op("aten::sub", "aten.sub.Tensor"),
    _op("aten::mul", "aten.mul.Tensor"),
    _op("aten::div", "aten.div.Tensor"),
    _op("aten::max_pool2d_with_indices", "aten.max_pool2d_with_indices.default"),
    _op("aten::avg_pool2d", "aten.avg_pool2d.default"),
    _op("aten::_adaptive_avg_pool2d", "aten._adaptive_avg_pool2d.default"),
    _op("aten::mean", "aten.mean.dim"),
    _op(
        "aten::view_copy",
        "aten.view.default",
        "aten.view_copy.default",
        "aten._unsafe_view.default",
        "aten.squeeze.dims",
        "aten.squeeze.dim",
        "aten.unsqueeze.default",
        "aten.reshape.default",
        dtypes=ANY_DTYPE,
    ),
    _op("aten::permute_copy", "aten.permute.default", "aten.permute_copy.default", dtypes=ANY_DTYPE),
    _op("aten::cat", "aten.cat.default", dtypes=ANY_DTYPE),
    # Data movement: copies of a part of the input (or of it repeated), for every dtype.
    _op("aten::slice_copy", "aten.slice.Tensor", "aten.slice_copy.Tensor", overload="Tensor_out", dtypes=ANY_DTYPE),
    _op("aten::select_copy", "aten.select.int", "aten.select_copy.int", overload="int_out", dtypes=ANY_DTYPE),
    _op(
        "aten::split_with_sizes_copy",
        "aten.split_with_sizes.default",
        "aten.split_with_sizes_copy.default",
        "aten.split.Tensor",
        "aten.split_copy.Tensor",
        dtypes=ANY_DTYPE,
    ),
    _op("aten::expand_copy", "aten.expand.default", "aten.expand_copy.default", dtypes=ANY_DTYPE),
    _op("aten::clone", "aten.clone.default", dtypes=ANY_DTYPE),
    _op("aten::full", "aten.full.default", dtypes=ANY_DTYPE),
    _op("aten::full_like", "aten.full_like.default", dtypes=ANY_DTYPE),
    _op("aten::embedding", "aten.embedding.default", dtypes=ANY_DTYPE),
    _op("aten::where", "aten.where.self", overload="self_out", dtypes=ANY_DTYPE),
    # Element-wise and reductions.
    _op("aten::abs", "aten.abs.default"),
    _op("aten::neg", "aten.neg.default"),
    _op("aten::minimum", "aten.minimum.default"),
    _op("aten::maximum", "aten.maximum.default"),
    *(
        _op(f"aten::{cmp}", f"aten.{cmp}.{form}", overload=f"{form}_out", dtypes=("bool",))
        for cmp in ("eq", "ne", "gt", "ge", "lt", "le")
        for form in ("Scalar", "Tensor")
    ),
    _op("aten::logical_not", "aten.logical_not.default", dtypes=("bool",)),
    _op("aten::any", "aten.any.dim", dtypes=("bool", "uint8")),
    _op("aten::sum", "aten.sum.dim_IntList", "aten.sum.default", overload="IntList_out"),
    _op("aten::_softmax", "aten._softmax.default"),
    _op("aten::constant_pad_nd", "aten.constant_pad_nd.default"),
    _op("aten::_native_batch_norm_legit_no_training", "aten._native_batch_norm_legit_no_training.default"),
    # Dtype conversion, as ExecuTorch names it: the target dtype is the out tensor's, dim_order None means
    # contiguous. `_to_copy` calls that change nothing are removed by the no-op pass before lowering.
    _op(
        "dim_order_ops::_to_dim_order_copy",
        "aten._to_copy.default",
        "dim_order_ops._to_dim_order_copy.default",
        schema_text="dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, "
        "int[]? dim_order=None, Tensor(a!) out) -> Tensor(a!)",
        dtypes=ANY_DTYPE,
    ),
    # ExecuTorch's clone (its programs write it; ours remove clones before lowering). No ATen target.
    _op(
        "dim_order_ops::_clone_dim_order",
        schema_text="dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False, "
        "int[]? dim_order=None, Tensor(a!) out) -> Tensor(a!)",
        dtypes=ANY_DTYPE,
    ),
    _op("aten::leaky_relu", "aten.leaky_relu.default"),
    _op("aten::elu", "aten.elu.default"),
    _op("aten::gelu", "aten.gelu.default"),
    _op("aten::_log_softmax", "aten._log_softmax.default"),
    _op("aten::native_layer_norm", "aten.native_layer_norm.default"),
    # ExecuTorch's portable library has none; torch's out variant (and its indices) is the convention.
    _op("aten::adaptive_max_pool2d", "aten.adaptive_max_pool2d.default"),
    # Moves elements only: int8 programs run it on the quantized bytes (int8/lower/rules_resize.py), where torch
    # has no kernel to serve as the reference.
    _op(
        "aten::upsample_nearest2d",
        "aten.upsample_nearest2d.vec",
        overload="vec_out",
        dtypes=ANY_DTYPE,
        reference="mcu_export.int8.reference.resize:upsample_nearest2d_call",
    ),
    _op("aten::upsample_bilinear2d", "aten.upsample_bilinear2d.vec", overload="vec_out"),
    _op("aten::clamp", "aten.clamp.Tensor", overload="Tensor_out"),
)

# OPS: the portable (fp32 and layout) kernels; ALL_OPS adds the int8 cortex_m ones. Kernel tables, the
# firmware's op lookup and the name index cover ALL_OPS.
ALL_OPS: Tuple[OpDef, ...] = OPS + CORTEX_M_OPS
BY_QUALIFIED: Dict[str, OpDef] = {op.qualified: op for op in ALL_OPS}
BY_ATEN: Dict[str, OpDef] = {target: op for op in ALL_OPS for target in op.aten}
