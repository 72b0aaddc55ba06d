"""Which transposed convolutions run in int8, and the convolution each one is.

A stride-1 transposed convolution is a convolution of the same input with the kernel flipped in H and W, its
input and output channels swapped, and padding dilation * (kernel - 1) - padding: every output element sums the
same products. CMSIS-NN's arm_transpose_conv_wrapper_s8 runs it so (its "reverse convolution": arm_convolve_s8 on
the reversed filter), so the int8 arithmetic is CMSIS-NN's convolution's, kernel and reference included. Other
strides would need zeros inserted between input pixels, which no int8 kernel here does: they stay in fp32.
The quantizer observes only the convolutions this accepts (weights per tensor: torch's transposed weight has
its output channels on axis 1); the lowering turns them into quantized_conv2d.
"""

from __future__ import annotations

from typing import List, Optional

import torch
from torch.fx import Node


def _shape(node) -> Optional[List[int]]:
    val = node.meta.get("val") if isinstance(node, Node) else None
    return list(val.shape) if isinstance(val, torch.Tensor) else None


def int8_refusal(node: Node) -> Optional[str]:
    """None when this transposed aten.convolution runs in int8 as a convolution, else why not."""
    x, w, _b, stride, padding, dilation, _transposed, output_padding, groups = node.args
    x_shape, w_shape = _shape(x), _shape(w)
    if x_shape is None or w_shape is None or len(x_shape) != 4:
        return "only 2-D transposed convolution has an int8 kernel"
    if any(int(s) != 1 for s in stride):
        return "a strided transposed convolution has no int8 kernel here (zeros between input pixels)"
    if int(groups) != 1:
        return "a grouped transposed convolution has no int8 kernel here"
    if any(int(p) != 0 for p in output_padding):
        return "transposed convolution with output_padding has no int8 kernel here"
    dil = [int(d) for d in dilation] * (2 // len(dilation))
    pad = [int(p) for p in padding] * (2 // len(padding))
    if any(p > d * (k - 1) for p, d, k in zip(pad, dil, w_shape[2:])):
        return "transposed convolution padding more than its dilated kernel has no int8 kernel here"
    return None


def as_convolution(weight: torch.Tensor, padding, dilation) -> tuple:
    """(weight [C_out, C_in, KH, KW], padding) of the convolution a stride-1 transposed convolution with this
    weight [C_in, C_out, KH, KW] is."""
    kh, kw = weight.shape[2], weight.shape[3]
    dil = [int(d) for d in dilation] * (2 // len(dilation))
    pad = [int(p) for p in padding] * (2 // len(padding))
    conv_pad = (dil[0] * (kh - 1) - pad[0], dil[1] * (kw - 1) - pad[1])
    return weight.flip(2, 3).transpose(0, 1).contiguous(), conv_pad
