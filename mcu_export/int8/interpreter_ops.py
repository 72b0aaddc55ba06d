"""The cortex_m kernels of the interpreter, on the numpy references of mcu_export.int8.reference.

Each function takes the call's arguments by schema name (tensors as logical numpy arrays, `dim_order`
of the input where memory order matters) and the out tensor's logical shape, and returns the logical
result. Conv and pooling arrays are logical NCHW stored channels-last: the references take NHWC.
"""

from __future__ import annotations

import numpy as np

from mcu_export.int8.arith import requantize
from mcu_export.int8.reference.batch_matmul import arm_batch_matmul_s8
from mcu_export.int8.reference.bilinear import upsample_bilinear2d_call
from mcu_export.int8.reference.convolution import arm_convolve_s8
from mcu_export.int8.reference.depthwise import arm_depthwise_conv_s8
from mcu_export.int8.reference.division import quantized_div_s8
from mcu_export.int8.reference.elementwise import ADD_LEFT_SHIFT, arm_elementwise_add_s8, arm_elementwise_mul_s8
from mcu_export.int8.reference.layer_norm import quantized_layer_norm as layer_norm_reference
from mcu_export.int8.reference.log_softmax import log_softmax_s8
from mcu_export.int8.reference.lut import arm_quantized_activation_s8
from mcu_export.int8.reference.minmax import arm_maximum_s8, arm_minimum_s8
from mcu_export.int8.reference.pad import arm_pad_s8
from mcu_export.int8.reference.pooling import arm_avgpool_s8, arm_max_pool_s8
from mcu_export.int8.reference.prelu import quantized_prelu as prelu_reference
from mcu_export.int8.reference.softmax import arm_softmax_s8
from mcu_export.int8.reference.transpose import arm_transpose_s8
from mcu_export.int8.reference.transpose_conv import arm_transpose_conv_s8

CHANNELS_LAST = [0, 2, 3, 1]


def _nhwc(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1))


def _nchw(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def quantize_per_tensor(a, out_shape):
    # As quantized_decomposed.quantize_per_tensor computes it in float32: round-half-even(x * (1/scale)) + zp.
    inv = np.float32(1.0 / a["scale"])
    q = np.rint(np.asarray(a["input"], np.float32) * inv) + np.float32(a["zero_point"])
    return np.clip(q, a["quant_min"], a["quant_max"]).astype(np.int8)


def dequantize_per_tensor(a, out_shape):
    x = np.asarray(a["input"]).astype(np.float32) - np.float32(a["zero_point"])
    return (x * np.float32(a["scale"])).astype(np.float32)


def _conv_common(a):
    return dict(
        input_offset=a["input_offset"],
        output_offset=a["output_offset"],
        multipliers=np.asarray(a["requantize_multipliers"], np.int64),
        shifts=np.asarray(a["requantize_shifts"], np.int64),
        stride=tuple(a["stride"]),
        padding=tuple(a["padding"]),
        dilation=tuple(a["dilation"]),
        activation=(a["activation_min"], a["activation_max"]),
    )


def quantized_conv2d(a, out_shape):
    out = arm_convolve_s8(_nhwc(a["input"]), a["weight"], a["bias"], output_hw=tuple(out_shape[2:]), **_conv_common(a))
    return _nchw(out)


def quantized_depthwise_conv2d(a, out_shape):
    out = arm_depthwise_conv_s8(
        _nhwc(a["input"]),
        a["weight"],
        a["bias"],
        ch_mult=a["depth_multiplier"],
        output_hw=tuple(out_shape[2:]),
        **_conv_common(a),
    )
    return _nchw(out)


def quantized_transpose_conv2d(a, out_shape):
    common = _conv_common(a)
    del common["dilation"]  # 1: the kernel's check
    out = arm_transpose_conv_s8(_nhwc(a["input"]), a["weight"], a["bias"], output_hw=tuple(out_shape[2:]), **common)
    return _nchw(out)


def quantized_upsample_bilinear2d(a, out_shape):
    return upsample_bilinear2d_call(a, out_shape)


def quantized_linear(a, out_shape):
    # rows of C_in: also a pooled [N, C_in, 1, 1] input, as the kernel reads it
    x = np.asarray(a["input"], np.int64).reshape(-1, a["weights"].shape[1])
    w = np.asarray(a["weights"], np.int64)
    if a["bias"] is None and a["kernel_sum"] is not None:
        # MVE form: x.w + filter_offset * sum(x) + (input_offset * sum(w + filter_offset) + bias)
        acc = x @ w.T + a["filter_offset"] * x.sum(axis=1, keepdims=True) + np.asarray(a["kernel_sum"], np.int64)
    else:
        acc = (x + a["input_offset"]) @ (w + a["filter_offset"]).T
        if a["bias"] is not None:
            acc = acc + np.asarray(a["bias"], np.int64)
    mults = np.asarray(a["requantize_multipliers"], np.int64)
    shifts = np.asarray(a["requantize_shifts"], np.int64)
    out = requantize(acc, mults, shifts) + a["output_offset"]
    out = np.clip(out, a["activation_min"], a["activation_max"]).astype(np.int8)
    return out.reshape(out_shape)


def quantized_add(a, out_shape):
    return arm_elementwise_add_s8(
        a["self"],
        a["other"],
        -a["self_zero_point"],
        a["self_multiplier"],
        a["self_shift"],
        -a["other_zero_point"],
        a["other_multiplier"],
        a["other_shift"],
        ADD_LEFT_SHIFT,
        a["output_zero_point"],
        a["output_multiplier"],
        a["output_shift"],
        a["activation_min"],
        a["activation_max"],
    )


def quantized_mul(a, out_shape):
    return arm_elementwise_mul_s8(
        a["self"],
        a["other"],
        -a["self_zero_point"],
        -a["other_zero_point"],
        a["output_zero_point"],
        a["output_multiplier"],
        a["output_shift"],
        -128,
        127,
    )


def quantized_div(a, out_shape):
    return quantized_div_s8(
        a["self"], a["self_zero_point"], a["other"], a["other_zero_point"], a["output_zero_point"], a["output_scale"]
    )


def minimum(a, out_shape):
    return arm_minimum_s8(a["self"], a["other"])


def maximum(a, out_shape):
    return arm_maximum_s8(a["self"], a["other"])


def quantized_activation(a, out_shape):
    return arm_quantized_activation_s8(a["input"], a["lut"])


def softmax(a, out_shape):
    x = np.asarray(a["input"])
    if a["dim"] % x.ndim != x.ndim - 1:
        raise ValueError("cortex_m::softmax runs over the last dimension only")
    return arm_softmax_s8(x, a["input_multiplier"], a["input_shift"], a["diff_min"])


def log_softmax(a, out_shape):
    """Over `dim`, which the kernel requires to be the innermost memory dim: rows either way."""
    x = np.moveaxis(np.asarray(a["input"]), a["dim"], -1)
    y = log_softmax_s8(x, a["input_multiplier"], a["input_shift"], a["diff_min"])
    return np.ascontiguousarray(np.moveaxis(y, -1, a["dim"]))


def quantized_prelu(a, out_shape):
    return prelu_reference(
        a["input"],
        a["channel_dim"],
        a["input_zero_point"],
        a["output_zero_point"],
        (a["positive_multiplier"], a["positive_shift"]),
        a["negative_multipliers"],
        a["negative_shifts"],
    )


def transpose(a, out_shape):
    return arm_transpose_s8(a["input"], a["perm"])


def pad(a, out_shape):
    x = np.asarray(a["input"])
    physical = _nhwc(x) if a["_dim_order"] == CHANNELS_LAST else x
    four = physical.reshape([1] * (4 - physical.ndim) + list(physical.shape))
    padded = arm_pad_s8(four, a["pad_value"], a["pre_pad"], a["post_pad"])
    padded = padded.reshape(padded.shape[4 - physical.ndim :])
    return _nchw(padded) if a["_dim_order"] == CHANNELS_LAST else padded


def quantized_avg_pool2d(a, out_shape):
    out = arm_avgpool_s8(
        _nhwc(a["input"]), tuple(a["kernel_size"]), tuple(a["stride"]), tuple(a["padding"]), tuple(out_shape[2:])
    )
    return _nchw(out)


def quantized_max_pool2d(a, out_shape):
    out = arm_max_pool_s8(
        _nhwc(a["input"]),
        tuple(a["kernel_size"]),
        tuple(a["stride"]),
        tuple(a["padding"]),
        tuple(out_shape[2:]),
        a["activation_min"],
        a["activation_max"],
    )
    return _nchw(out)


def quantized_batch_matmul(a, out_shape):
    return arm_batch_matmul_s8(
        a["lhs"],
        a["rhs_transposed"],
        lhs_offset=a["lhs_zero_point"],
        rhs_offset=a["rhs_zero_point"],
        output_offset=a["output_zero_point"],
        multiplier=a["output_multiplier"],
        shift=a["output_shift"],
    )


def quantized_layer_norm(a, out_shape):
    return layer_norm_reference(
        a["input"],
        a["weight"],
        a["bias"],
        epsilon=a["epsilon"],
        output_zero_point=a["output_zero_point"],
        multiplier=a["output_multiplier"],
        shift=a["output_shift"],
    )


# The explicit-layout spellings: logical [N, H, W, C], contiguous, what the references take as they are.


def quantized_conv2d_nhwc(a, out_shape):
    return arm_convolve_s8(a["input"], a["weight"], a["bias"], output_hw=tuple(out_shape[1:3]), **_conv_common(a))


def quantized_depthwise_conv2d_nhwc(a, out_shape):
    return arm_depthwise_conv_s8(
        a["input"],
        a["weight"],
        a["bias"],
        ch_mult=a["depth_multiplier"],
        output_hw=tuple(out_shape[1:3]),
        **_conv_common(a),
    )


def quantized_avg_pool2d_nhwc(a, out_shape):
    return arm_avgpool_s8(
        a["input"], tuple(a["kernel_size"]), tuple(a["stride"]), tuple(a["padding"]), tuple(out_shape[1:3])
    )


def quantized_max_pool2d_nhwc(a, out_shape):
    return arm_max_pool_s8(
        a["input"],
        tuple(a["kernel_size"]),
        tuple(a["stride"]),
        tuple(a["padding"]),
        tuple(out_shape[1:3]),
        a["activation_min"],
        a["activation_max"],
    )
