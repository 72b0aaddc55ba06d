"""mean and sum over any dims as one cortex_m depthwise convolution (CMSIS-NN has no int8 reduction
beyond average pooling; this is TOSA's REDUCE_SUM then RESCALE).

The reduced dims, made one contiguous block (a transpose first if they are not), split the tensor's
bytes as [outer, R, inner]: that is an NHWC [1, outer, R, inner] image, and a depthwise convolution with
a (1, R) kernel of ones sums each column exactly in int32 ((q - zp) per tap), which the kernel's
requantization scales by input_scale / (output_scale * R) for a mean, input_scale / output_scale for a
sum, rounding once. A mean over H and W of a 4-D channels-last tensor stays average pooling (as
ExecuTorch lowers it); a 1-D value's mean over L reads its channels-last twin (rules_conv1d).
"""

from __future__ import annotations

import math
from typing import List

import torch
from torch.fx import Node

from mcu_export.int8.arith import quantize_multiplier
from mcu_export.int8.lower import match
from mcu_export.int8.lower import rules_layout as lay
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op, scratch_of
from mcu_export.int8.lower.rules_common import Refusal, terminal
from mcu_export.ops.table import BY_QUALIFIED

VIEW = BY_QUALIFIED["aten::view_copy.out"]
depthwise_scratch = scratch_of("quantized_depthwise_conv2d")


def _dims(node: Node, rank: int) -> List[int]:
    dims = node.args[1] if len(node.args) > 1 else None
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    dims = [dims] if isinstance(dims, int) else dims
    return sorted({int(d) % rank for d in dims})


def lower_mean(lw, node: Node) -> None:
    shape = lw.shape(node.args[0])
    if len(shape) == 4 and _dims(node, 4) == [2, 3]:
        lay.lower_mean(lw, node)
        return
    _reduce(lw, node, mean=True)


def lower_sum(lw, node: Node) -> None:
    _reduce(lw, node, mean=False)


def _view(lw, qt: QTensor, shape) -> QTensor:
    if list(lw.table.values[qt.index].sizes) == list(shape):
        return qt
    qt = lw.to_layout(qt, False)
    out = lw.new_tensor(torch.int8, shape)
    lw.call(VIEW, dict(self=T(qt.index), size=[int(s) for s in shape]), [out])
    return QTensor(out, qt.scale, qt.zp, False)


def _column_sums(lw, qt: QTensor, op: str, in_shape, kernel, out_shape, real: float, out: match.QParams) -> int:
    """Depthwise sums over a `kernel` window of ones, times `real`, quantized at `out`, into a new tensor;
    shapes in `op`'s spelling (NHWC for *_nhwc, else NCHW stored channels-last)."""
    channels = int(in_shape[3] if op.endswith("_nhwc") else in_shape[1])
    mult, shift = quantize_multiplier(real)
    if not -31 <= shift <= 31:
        raise Refusal(f"the reduction's rescale {real:g} is out of the kernels' range")
    n_hwc = (lambda s: tuple(s)) if op.endswith("_nhwc") else (lambda s: (s[0], s[2], s[3], s[1]))
    geometry = ((1, 1), (0, 0), (1, 1))
    size = max(depthwise_scratch(isa, n_hwc(in_shape), kernel, n_hwc(out_shape), *geometry) for isa in lw.isas)
    result = lw.new_tensor(torch.int8, out_shape, cl=not op.endswith("_nhwc"))
    lw.call(
        cortex_m_op(op),
        dict(
            input=T(qt.index),
            weight=T(lw.const(torch.ones(1, kernel[0], kernel[1], channels, dtype=torch.int8))),
            bias=T(lw.const(torch.zeros(channels, dtype=torch.int32))),
            stride=[1, 1],
            padding=[0, 0],
            dilation=[1, 1],
            depth_multiplier=1,
            input_offset=-qt.zp,
            output_offset=out.zp,
            requantize_multipliers=T(lw.const(torch.full((channels,), mult, dtype=torch.int32))),
            requantize_shifts=T(lw.const(torch.full((channels,), shift, dtype=torch.int32))),
            activation_min=-128,
            activation_max=127,
            scratch=T(lw.new_tensor(torch.uint8, [size])),
        ),
        [result],
    )
    return result


def _reduce(lw, node: Node, mean: bool) -> None:
    x = node.args[0]
    if node.kwargs.get("dtype") is not None:
        raise Refusal("reduction with a dtype")
    shape = [int(s) for s in lw.shape(x)]
    rank = len(shape)
    if rank == 0:
        raise Refusal("reduction of a 0-dim tensor")
    dims = _dims(node, rank)
    qx = lw.qinput_deferred(x)
    if qx is None:
        raise Refusal("its input is not int8")
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    count = math.prod(shape[d] for d in dims)
    real = qx.scale / (out.scale * (count if mean else 1))
    out_shape = lw.shape(node)
    twin = lw.twins.get(qx.index)
    if twin is not None and dims == [2] and shape[0] == 1:  # a 1-D value over L: its twin's W
        op, in_shape = "quantized_depthwise_conv2d", [1, shape[1], 1, shape[2]]
        result = _column_sums(lw, twin, op, in_shape, (1, shape[2]), [1, shape[1], 1, 1], real, out)
    else:
        qx = lw.to_layout(lw.written(qx), False)
        block = list(range(rank - len(dims), rank)) if dims != list(range(dims[0], dims[-1] + 1)) else dims
        if block != dims:  # the reduced dims last, then they are one block
            if rank > 4:
                raise Refusal("reduction over non-adjacent dims of a tensor of more than 4 dims")
            perm = [d for d in range(rank) if d not in dims] + dims
            moved = lw.new_tensor(torch.int8, [shape[d] for d in perm])
            lw.call(cortex_m_op("transpose"), dict(input=T(qx.index), perm=perm), [moved])
            qx, shape = QTensor(moved, qx.scale, qx.zp, False), [shape[d] for d in perm]
        outer, inner = math.prod(shape[: block[0]]), math.prod(shape[block[-1] + 1 :])
        image = _view(lw, qx, [1, outer, count, inner])
        op = "quantized_depthwise_conv2d_nhwc"
        result = _column_sums(lw, image, op, [1, outer, count, inner], (1, count), [1, outer, 1, inner], real, out)
    qt = _view(lw, QTensor(result, out.scale, out.zp, lw.is_cl(result)), out_shape)
    lw.set_output(quantizers, qt, [node])
