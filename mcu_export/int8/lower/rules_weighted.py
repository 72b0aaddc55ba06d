"""Convolution, depthwise convolution and linear as cortex_m int8 kernels.

Weights are re-laid out as CMSIS-NN reads them: conv OHWI [C_out, KH, KW, C_in/groups], depthwise
[1, KH, KW, C_out], fully connected [C_out, C_in] (torch's own). Requantization is per output channel:
multiplier and shift of input_scale * weight_scale[c] / output_scale, computed here.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from mcu_export.int8.arith import quantize_multiplier, wrap_int32
from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op, scratch_of
from mcu_export.int8.lower.rules_common import Refusal, activation_range, bias, terminal, weight

# Scratch sizes come from the op table (the twins of CMSIS-NN's *_get_buffer_size).
conv_scratch = scratch_of("quantized_conv2d")
depthwise_scratch = scratch_of("quantized_depthwise_conv2d")
fc_scratch = scratch_of("quantized_linear")


def requant_params(input_scale: float, weight_scales: np.ndarray, output_scale: float):
    pairs = [quantize_multiplier(input_scale * float(ws) / output_scale) for ws in weight_scales]
    return [m for m, _ in pairs], [s for _, s in pairs]


def _is_depthwise(c_in: int, c_out: int, groups: int, batch: int) -> bool:
    # ExecuTorch's choice (aten_to_cortex_m_pass): one group per input channel, batch 1. A single input
    # channel is an ordinary convolution: as "depthwise" it would have a channel multiplier of C_out, which
    # CMSIS-NN runs on its plain C loop only (KWS's first layer: 10.9 M instructions instead of ~0.5 M on M55).
    return groups == c_in and c_in > 1 and c_out % c_in == 0 and batch == 1


def lower_conv(lw, node: Node) -> None:
    x, w, b, stride, padding, dilation, transposed, _out_pad, groups = node.args
    if transposed:
        raise Refusal("transposed convolution has no int8 kernel here")
    if len(lw.shape(node)) != 4:
        raise Refusal("only 2-D convolution has an int8 kernel")
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("its input is not int8")
    last, act, quantizers = terminal(node)
    out = match.qparams(quantizers[0])
    c_out = lw.shape(node)[1]
    wq, wscales = weight(lw, w, c_out)
    stride, padding, dilation = (tuple(int(v) for v in p) for p in (stride, padding, dilation))
    result = conv_call(
        lw, qx, wq, wscales, b, (stride, padding, dilation), groups, lw.shape(x), lw.shape(node), act, out
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, True), [node] + ([act] if act else []))


def conv_call(
    lw, qx: QTensor, wq, wscales, b, geometry, groups: int, in_shape, out_shape, act, out, depthwise=None
) -> int:
    """Emits the int8 convolution (depthwise kernel where it is one) of `qx` ([N, C, H, W]) with the int8
    weight `wq` [C_out, C_in / groups, KH, KW]; returns its channels-last result tensor [N, C_out, OH, OW].
    `geometry`: (stride, padding, dilation), pairs of (h, w); `b`: the bias node, or an int32 tensor;
    `depthwise`: True to take the depthwise kernel at any batch (None: ExecuTorch's choice)."""
    stride, padding, dilation = geometry
    n, c_in, h, wd = in_shape
    _, c_out, oh, ow = out_shape
    bq = b if isinstance(b, torch.Tensor) else bias(lw, b, qx.scale, wscales)
    if bq is None:  # grouped kernels index the bias per group/channel block: give them a real one
        bq = torch.zeros(c_out, dtype=torch.int32)
    mults, shifts = requant_params(qx.scale, wscales, out.scale)
    act_min, act_max = activation_range(act, out)
    kh, kw = wq.shape[2], wq.shape[3]
    qx = lw.to_layout(qx, True)
    result = lw.new_tensor(torch.int8, [n, c_out, oh, ow], cl=True)
    common = dict(
        input=T(qx.index),
        bias=T(lw.const(bq)),
        stride=stride,
        padding=padding,
        dilation=dilation,
        input_offset=-qx.zp,
        output_offset=out.zp,
        requantize_multipliers=T(lw.const(torch.tensor(mults, dtype=torch.int32))),
        requantize_shifts=T(lw.const(torch.tensor(shifts, dtype=torch.int32))),
        activation_min=act_min,
        activation_max=act_max,
    )
    in_nhwc, out_nhwc = (n, h, wd, c_in), (n, oh, ow, c_out)
    if depthwise or (depthwise is None and _is_depthwise(c_in, c_out, groups, n)):
        size = max(depthwise_scratch(isa, in_nhwc, (kh, kw), out_nhwc, stride, padding, dilation) for isa in lw.isas)
        lw.call(
            cortex_m_op("quantized_depthwise_conv2d"),
            dict(
                common,
                weight=T(lw.const(wq.permute(1, 2, 3, 0))),
                depth_multiplier=c_out // c_in,
                scratch=T(lw.new_tensor(torch.uint8, [size])),
            ),
            [result],
        )
    else:
        ohwi = wq.permute(0, 2, 3, 1)
        size = max(
            conv_scratch(isa, in_nhwc, tuple(ohwi.shape), out_nhwc, stride, padding, dilation) for isa in lw.isas
        )
        lw.call(
            cortex_m_op("quantized_conv2d"),
            dict(common, weight=T(lw.const(ohwi)), scratch=T(lw.new_tensor(torch.uint8, [size]))),
            [result],
        )
    return result


def lower_linear(lw, node: Node) -> None:
    x, w = node.args[0], node.args[1]
    b = node.args[2] if len(node.args) > 2 else None
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("its input is not int8")
    last, act, quantizers = terminal(node)
    out = match.qparams(quantizers[0])
    shape = lw.shape(node)
    c_out = shape[-1]
    wq, wscales = weight(lw, w, c_out)
    bq = bias(lw, b, qx.scale, wscales)
    if len(set(wscales.tolist())) == 1:  # per-tensor: one multiplier, as arm_fully_connected_s8 takes
        wscales = wscales[:1]
    mults, shifts = requant_params(qx.scale, wscales, out.scale)
    act_min, act_max = activation_range(act, out)
    # A kernel with scratch (MVE) reads input_offset * sum(w) + bias from a precomputed kernel sum (ctx.buf)
    # and ignores the bias; our runtime's DSP/scalar kernels use the kernel sum as the bias when given it
    # (runtime_c/kernels/cortex_m/README.md), so one program with it runs everywhere. The bias is kept
    # for targets whose kernel has no scratch: ExecuTorch's own DSP kernel reads only the bias.
    sums = wq.to(torch.int64).sum(dim=1) * (-qx.zp)
    if bq is not None:
        sums = sums + bq.to(torch.int64)
    kernel_sum = torch.from_numpy(wrap_int32(sums.numpy()).astype(np.int32))
    wants_sum = True
    wants_bias = any(fc_scratch(isa, c_out) == 0 for isa in lw.isas)
    qx = lw.to_layout(qx, False)
    result = lw.new_tensor(torch.int8, shape)
    lw.call(
        cortex_m_op("quantized_linear"),
        dict(
            input=T(qx.index),
            weights=T(lw.const(wq)),
            bias=T(lw.const(bq)) if bq is not None and wants_bias else None,
            kernel_sum=T(lw.const(kernel_sum)) if wants_sum else None,
            input_offset=-qx.zp,
            filter_offset=0,
            output_offset=out.zp,
            requantize_multipliers=mults,
            requantize_shifts=shifts,
            activation_max=act_max,
            activation_min=act_min,
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, False), [node] + ([act] if act else []))
