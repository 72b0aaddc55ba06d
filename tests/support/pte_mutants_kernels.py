"""Mutants the kernels' load-time checks refuse: wrong shapes, dtypes, dim orders and argument kinds, and
quantization constants outside what the kernel's integer arithmetic allows.

Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

import numpy as np

from mcu_export.pte import program as P
from pte_mutant_base import INT32_MAX, INT32_MIN, fill_const, fill_ints, mutant

# ---- wrong shapes, dtypes, dim orders, argument kinds (the kernels' own checks) -------------------------


@mutant("mixer-f32", "MX_ERR_BAD_SHAPE")
def conv_out_one_column_short(e):
    e.edit_tensor(e.arg(e.call("aten::convolution.out"), "out"), sizes=[1, 8, 8, 7])


@mutant("mixer-f32", "MX_ERR_BAD_SHAPE")
def addmm_out_one_feature_short(e):
    e.edit_tensor(e.arg(e.call("aten::addmm.out"), "out"), sizes=[1, 5])


@mutant("mixer-f32", "MX_ERR_BAD_ARG_VALUE")
def split_sizes_do_not_add_up(e):
    e.set_ints(e.call("aten::split_with_sizes_copy.out"), "split_sizes", [4, 3])


@mutant("mixer-i8", "MX_ERR_BAD_SHAPE")
def int8_softmax_out_short(e):
    e.edit_tensor(e.arg(e.call("cortex_m::softmax.out"), "out"), sizes=[1, 5])


@mutant("mixer-i8", "MX_ERR_BAD_SHAPE")
def int8_cat_out_one_channel_short(e):
    e.edit_tensor(e.arg(e.call("aten::cat.out"), "out"), sizes=[1, 7, 4, 4])


@mutant("mlp-i8", "MX_ERR_BAD_SHAPE")
def int8_linear_weight_one_input_short(e):
    w = e.arg(e.call("cortex_m::quantized_linear.out"), "weights")
    e.edit_tensor(w, sizes=[32, 783])


@mutant("mixer-f32", "MX_ERR_BAD_DTYPE")
def relu_out_int32(e):
    e.edit_tensor(e.arg(e.call("aten::relu.out"), "out"), scalar_type=P.ScalarType.INT)


@mutant("mixer-f32", "MX_ERR_BAD_DTYPE")
def conv_weight_int32(e):
    e.edit_tensor(e.arg(e.call("aten::convolution.out"), "weight"), scalar_type=P.ScalarType.INT)


@mutant("mixer-i8", "MX_ERR_BAD_DTYPE")
def int8_conv_bias_int8(e):
    e.edit_tensor(e.arg(e.call("cortex_m::quantized_conv2d.out"), "bias"), scalar_type=P.ScalarType.CHAR)


@mutant("mixer-i8", "MX_ERR_BAD_DTYPE")
def int8_add_other_uint8(e):
    e.edit_tensor(e.arg(e.call("cortex_m::quantized_add.out"), "other"), scalar_type=P.ScalarType.BYTE)


@mutant("mlp-i8", "MX_ERR_BAD_DTYPE")
def int8_dequantize_out_int32(e):
    e.edit_tensor(e.arg(e.call("cortex_m::dequantize_per_tensor.out"), "out"), scalar_type=P.ScalarType.INT)


@mutant("mixer-f32", "MX_ERR_BAD_ARG_VALUE")
def conv_out_channels_last(e):
    e.edit_tensor(e.arg(e.call("aten::convolution.out"), "out"), dim_order=[0, 2, 3, 1])


@mutant("mixer-f32", "MX_ERR_BAD_TENSOR")
def relu_out_dim_order_repeats(e):
    e.edit_tensor(e.arg(e.call("aten::relu.out"), "out"), dim_order=[0, 0, 1, 2])


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_maxpool_out_contiguous(e):
    e.edit_tensor(e.arg(e.call("cortex_m::quantized_max_pool2d.out"), "out"), dim_order=[0, 1, 2, 3])


@mutant("kws-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_depthwise_input_contiguous(e):
    e.edit_tensor(e.arg(e.call("cortex_m::quantized_depthwise_conv2d.out"), "input"), dim_order=[0, 1, 2, 3])


@mutant("mixer-f32", "MX_ERR_BAD_ARG_TYPE")
def conv_stride_an_int(e):
    e.set_int(e.call("aten::convolution.out"), "stride", 1)


@mutant("mixer-f32", "MX_ERR_BAD_ARG_TYPE")
def add_alpha_a_string(e):
    e.set_arg(e.call("aten::add.out"), "alpha", P.String("1"))


@mutant("mixer-f32", "MX_ERR_BAD_ARG_TYPE")
def softmax_dim_a_bool(e):
    e.set_arg(e.call("aten::_softmax.out"), "dim", P.Bool(True))


@mutant("mixer-f32", "MX_ERR_BAD_ARG_TYPE")
def split_sizes_null(e):
    e.set_arg(e.call("aten::split_with_sizes_copy.out"), "split_sizes", P.Null())


@mutant("mixer-i8", "MX_ERR_BAD_ARG_TYPE")
def int8_linear_multipliers_a_tensor(e):
    c = e.call("cortex_m::quantized_linear.out")
    c.args[e.pos(c, "requantize_multipliers")] = e.new_const(np.array(e.items(c, "requantize_multipliers"), np.int32))


# ---- extreme quantization. A value outside the range its argument declares (a shift past [-31, 31], an int8
# zero point of 300; the op table's ranges, or the kernel's check of a shift tensor) is MX_ERR_BAD_ARG_VALUE;
# one inside it that the kernel's integer arithmetic cannot hold (a bias that overflows the int32 accumulator,
# a negative multiplier) is MX_ERR_ARITH_RANGE.


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_conv_bias_int32_max(e):
    fill_const(e, "cortex_m::quantized_conv2d.out", "bias", INT32_MAX)


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_conv_multiplier_negative(e):
    fill_const(e, "cortex_m::quantized_conv2d.out", "requantize_multipliers", -(1 << 30))


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_conv_shift_40(e):
    fill_const(e, "cortex_m::quantized_conv2d.out", "requantize_shifts", 40)


@mutant("kws-i8", "MX_ERR_ARITH_RANGE")
def int8_depthwise_bias_int32_min(e):
    fill_const(e, "cortex_m::quantized_depthwise_conv2d.out", "bias", INT32_MIN, nth=1)


@mutant("kws-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_depthwise_shift_40(e):
    fill_const(e, "cortex_m::quantized_depthwise_conv2d.out", "requantize_shifts", 40)


@mutant("mlp-i8", "MX_ERR_ARITH_RANGE")
def int8_linear_kernel_sum_int32_max(e):
    """kernel_sum (bias and input offset folded in) seeds the accumulator in place of the bias, which the
    kernel then never reads: the seed is the constant whose size matters."""
    fill_const(e, "cortex_m::quantized_linear.out", "kernel_sum", INT32_MAX)


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_linear_multiplier_negative(e):
    fill_ints(e, "cortex_m::quantized_linear.out", "requantize_multipliers", -(1 << 30))


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_linear_shift_40(e):
    fill_ints(e, "cortex_m::quantized_linear.out", "requantize_shifts", 40)


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_add_zero_point_300(e):
    e.set_int(e.call("cortex_m::quantized_add.out"), "self_zero_point", 300)


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_add_output_shift_31(e):
    """A left shift of 31 (inside the declared [-31, 31]) takes the requantized sum out of int32. (A negative
    multiplier is no fault here: sub is add with other's multiplier negated.)"""
    e.set_int(e.call("cortex_m::quantized_add.out"), "output_shift", 31)


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_add_output_shift_40(e):
    e.set_int(e.call("cortex_m::quantized_add.out"), "output_shift", 40)


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_softmax_multiplier_negative(e):
    e.set_int(e.call("cortex_m::softmax.out"), "input_multiplier", -(1 << 30))


@mutant("kws-i8", "MX_ERR_ARITH_RANGE")
def int8_depthwise_multiplier_negative(e):
    fill_const(e, "cortex_m::quantized_depthwise_conv2d.out", "requantize_multipliers", -(1 << 30), nth=3)


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_quantize_scale_1e_300(e):
    """1 / 1e-300 is past float's range: the kernel's float32 inverse scale would be an undefined conversion
    (C11 6.3.1.5). (A zero point of 300 is no fault: the result is clamped to [quant_min, quant_max].)"""
    e.set_arg(e.call("cortex_m::quantize_per_tensor.out"), "scale", P.Double(1e-300))
