"""Which transposed convolutions run in int8, and the convolution each one is.

A stride-1 transposed convolution is a convolution of the same input with the kernel flipped in H and W, its
input and output channels swapped, and padding dilation * (kernel - 1) - padding: every output element sums the
same products. CMSIS-NN's arm_transpose_conv_wrapper_s8 runs it so (its "reverse convolution": arm_convolve_s8 on
the reversed filter), so the int8 arithmetic is CMSIS-NN's convolution's, kernel and reference included.
Other strides, and output_padding, run as CMSIS-NN's own arm_transpose_conv_s8 (cortex_m
quantized_transpose_conv2d): dilation 1, and padding plus output within the (in - 1) * stride + MAX(kernel,
stride) rows and columns its rolling buffer holds.
The quantizer observes only the convolutions this accepts (weights per channel along axis 1, where torch's
transposed weight has its output channels); the lowering turns them into quantized_conv2d or quantized_transpose_conv2d.
"""

from __future__ import annotations

from typing import List, Optional

import torch
from torch.fx import Node


def _shape(node) -> Optional[List[int]]:
    val = node.meta.get("val") if isinstance(node, Node) else None
    return list(val.shape) if isinstance(val, torch.Tensor) else None


def int8_refusal(node: Node) -> Optional[str]:
    """None when this transposed aten.convolution runs in int8, else why not."""
    x, w, _b, stride, padding, dilation, _transposed, output_padding, groups = node.args
    x_shape, w_shape = _shape(x), _shape(w)
    if x_shape is None or w_shape is None or len(x_shape) != 4:
        return "only 2-D transposed convolution has an int8 kernel"
    if int(groups) != 1:
        return "a grouped transposed convolution has no int8 kernel here"
    dil = [int(d) for d in dilation] * (2 // len(dilation))
    pad = [int(p) for p in padding] * (2 // len(padding))
    if not is_convolution(node):
        out_shape = _shape(node)
        if dil != [1, 1]:
            return "a strided dilated transposed convolution has no int8 kernel here"
        if out_shape is None:
            return "transposed convolution without a known output shape"
        buffered = [(i - 1) * int(s) + max(k, int(s)) for i, s, k in zip(x_shape[2:], _pair(stride), w_shape[2:])]
        if any(p + o > b for p, o, b in zip(pad, out_shape[2:], buffered)):
            return "transposed convolution whose output_padding reaches past its kernel has no int8 kernel here"
        return None
    if any(p > d * (k - 1) for p, d, k in zip(pad, dil, w_shape[2:])):
        return "transposed convolution padding more than its dilated kernel has no int8 kernel here"
    return None


def _pair(v) -> List[int]:
    return [int(i) for i in v] * (2 // len(v))


def is_convolution(node: Node) -> bool:
    """Stride 1 and no output_padding: the transposed convolution runs as a flipped ordinary convolution."""
    stride, output_padding = node.args[3], node.args[7]
    return all(int(s) == 1 for s in stride) and all(int(p) == 0 for p in output_padding)


def as_convolution(weight: torch.Tensor, padding, dilation) -> tuple:
    """(weight [C_out, C_in, KH, KW], padding) of the convolution a stride-1 transposed convolution with this
    weight [C_in, C_out, KH, KW] is."""
    kh, kw = weight.shape[2], weight.shape[3]
    dil = [int(d) for d in dilation] * (2 // len(dilation))
    pad = [int(p) for p in padding] * (2 // len(padding))
    conv_pad = (dil[0] * (kh - 1) - pad[0], dil[1] * (kw - 1) - pad[1])
    return weight.flip(2, 3).transpose(0, 1).contiguous(), conv_pad
