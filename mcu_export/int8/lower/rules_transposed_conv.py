"""aten.convolution as cortex_m int8 kernels: ordinary ones by rules_conv1d (1-D, else rules_weighted), stride-1 transposed ones
as the convolution they are (int8/transposed_conv.py), through quantized_conv2d; strided ones (or with output_padding)
through quantized_transpose_conv2d (arm_transpose_conv_s8)."""

from __future__ import annotations

import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import Refusal, activation_range, bias, terminal, weight
from mcu_export.int8.lower.rules_conv1d import lower_convolution as lower_conv
from mcu_export.int8.lower.rules_weighted import conv_scratch, requant_params
from mcu_export.int8.lower.scratch import transpose_conv_scratch
from mcu_export.int8.transposed_conv import as_convolution, int8_refusal, is_convolution


def lower_convolution(lw, node: Node) -> None:
    if node.args[6]:
        lower_transposed_conv(lw, node)
    else:
        lower_conv(lw, node)


def lower_transposed_conv(lw, node: Node) -> None:
    refusal = int8_refusal(node)
    if refusal is not None:
        raise Refusal(refusal)
    x, w, b, _stride, padding, dilation = node.args[:6]
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("its input is not int8")
    _last, act, quantizers = terminal(node)
    out = match.qparams(quantizers[0])
    n, c_in, h, wd = lw.shape(x)
    _, c_out, oh, ow = lw.shape(node)
    wq, wscales = weight(lw, w, c_out, axis=1)  # [C_in, C_out, KH, KW], a scale per output channel
    if not is_convolution(node):
        _lower_strided(lw, node, qx, wq, wscales, out, act, quantizers)
        return
    conv_w, conv_pad = as_convolution(wq, padding, dilation)
    bq = bias(lw, b, qx.scale, wscales)
    mults, shifts = requant_params(qx.scale, wscales, out.scale)
    act_min, act_max = activation_range(act, out)
    dil = tuple(int(d) for d in dilation) * (2 // len(dilation))
    ohwi = conv_w.permute(0, 2, 3, 1)
    in_nhwc, out_nhwc = (n, h, wd, c_in), (n, oh, ow, c_out)
    size = max(conv_scratch(isa, in_nhwc, tuple(ohwi.shape), out_nhwc, (1, 1), conv_pad, dil) for isa in lw.isas)
    qx = lw.to_layout(qx, True)
    result = lw.new_tensor(torch.int8, [n, c_out, oh, ow], cl=True)
    lw.call(
        cortex_m_op("quantized_conv2d"),
        dict(
            input=T(qx.index),
            weight=T(lw.const(ohwi)),
            bias=T(lw.const(bq)) if bq is not None else None,
            stride=(1, 1),
            padding=conv_pad,
            dilation=dil,
            input_offset=-qx.zp,
            output_offset=out.zp,
            requantize_multipliers=T(lw.const(torch.tensor(mults, dtype=torch.int32))),
            requantize_shifts=T(lw.const(torch.tensor(shifts, dtype=torch.int32))),
            activation_min=act_min,
            activation_max=act_max,
            scratch=T(lw.new_tensor(torch.uint8, [size])),
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, True), [node] + ([act] if act else []))


def pair(v) -> tuple:
    return tuple(int(i) for i in v) * (2 // len(v))


def _lower_strided(lw, node: Node, qx: QTensor, wq: torch.Tensor, wscales, out, act, quantizers) -> None:
    x, _w, b, stride, padding, _dilation, _t, output_padding = node.args[:8]
    n, c_in, h, wd = lw.shape(x)
    _, c_out, oh, ow = lw.shape(node)
    ohwi = wq.permute(1, 2, 3, 0).contiguous()
    bq = bias(lw, b, qx.scale, wscales)
    mults, shifts = requant_params(qx.scale, wscales, out.scale)
    act_min, act_max = activation_range(act, out)
    size = max(
        transpose_conv_scratch(isa, (n, h, wd, c_in), tuple(ohwi.shape), (n, oh, ow, c_out), pair(stride))
        for isa in lw.isas
    )
    qx = lw.to_layout(qx, True)
    result = lw.new_tensor(torch.int8, [n, c_out, oh, ow], cl=True)
    lw.call(
        cortex_m_op("quantized_transpose_conv2d"),
        dict(
            input=T(qx.index),
            weight=T(lw.const(ohwi)),
            bias=T(lw.const(bq)) if bq is not None else None,
            stride=pair(stride),
            padding=pair(padding),
            output_padding=pair(output_padding),
            dilation=(1, 1),
            input_offset=-qx.zp,
            output_offset=out.zp,
            requantize_multipliers=T(lw.const(torch.tensor(mults, dtype=torch.int32))),
            requantize_shifts=T(lw.const(torch.tensor(shifts, dtype=torch.int32))),
            activation_min=act_min,
            activation_max=act_max,
            scratch=T(lw.new_tensor(torch.uint8, [size])),
            output_scratch=T(lw.new_tensor(torch.uint8, [0])),
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, True), [node] + ([act] if act else []))
