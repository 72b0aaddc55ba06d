"""Pooling, views, permute, pad, cat and the copies (slice, select, split, expand, clone) on int8 values
(their output shares the input's parameters).

Pools read and write channels-last; views, cat and transposes work on contiguous data (what their
logical shapes mean); pad is given its amounts in memory order, as ExecuTorch's pad kernel takes them.
"""

from __future__ import annotations

import operator
from typing import List, Tuple

import torch
from torch.fx import Node

from mcu_export.int8.arith import quantize_multiplier
from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import CHANNELS_LAST, QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op, scratch_of
from mcu_export.int8.lower.rules_common import Refusal, terminal
from mcu_export.lower.args import bind_node
from mcu_export.ops.table import BY_ATEN, BY_QUALIFIED

aten = torch.ops.aten

avgpool_scratch = scratch_of("quantized_avg_pool2d")  # from the op table


def _shared_input(lw, node: Node, x: Node, out_node: Node):
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("its input is not int8")
    _, _, quantizers = terminal(out_node, fuse=False)
    out = match.qparams(quantizers[0])
    if out != qx.q:
        raise Refusal("output quantization differs from the input's")
    return qx, quantizers


def _pair(v, default):
    v = list(v) if v else list(default)
    return v * 2 if len(v) == 1 else v


def lower_max_pool(lw, node: Node) -> None:
    users = list(node.users)
    if len(users) != 1 or users[0].target.__name__ != "getitem" or users[0].args[1] != 0:
        raise Refusal("its indices are used")
    values = users[0]
    args = list(node.args) + [None] * (6 - len(node.args))
    x, kernel, stride, padding, dilation, ceil_mode = args[:6]
    kernel = _pair(kernel, ())
    stride, padding, dilation = _pair(stride, kernel), _pair(padding, (0, 0)), _pair(dilation, (1, 1))
    if dilation != [1, 1] or ceil_mode:
        raise Refusal("dilated or ceil-mode max pooling")
    qx, quantizers = _shared_input(lw, node, x, values)
    qx = lw.to_layout(qx, True)
    result = lw.new_tensor(torch.int8, lw.shape(values), cl=True)
    lw.call(
        cortex_m_op("quantized_max_pool2d"),
        dict(
            input=T(qx.index),
            kernel_size=kernel,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=False,
            input_zero_point=qx.zp,
            output_zero_point=qx.zp,
            activation_min=-128,
            activation_max=127,
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, qx.scale, qx.zp, True), [node, values])


def _avg_pool(lw, node: Node, x: Node, kernel, stride, padding, out_shape) -> Tuple[QTensor, List[Node]]:
    qx, quantizers = _shared_input(lw, node, x, node)
    qx = lw.to_layout(qx, True)
    mult, shift = quantize_multiplier(qx.scale)
    size = max(avgpool_scratch(isa, lw.shape(x)[1]) for isa in lw.isas)
    result = lw.new_tensor(torch.int8, out_shape, cl=True)
    lw.call(
        cortex_m_op("quantized_avg_pool2d"),
        dict(
            input=T(qx.index),
            kernel_size=kernel,
            stride=stride,
            padding=padding,
            ceil_mode=False,
            zero_point=qx.zp,
            multiplier=mult,
            shift=shift,
            scratch=T(lw.new_tensor(torch.uint8, [size])),
        ),
        [result],
    )
    return QTensor(result, qx.scale, qx.zp, True), quantizers


def lower_avg_pool(lw, node: Node) -> None:
    args = list(node.args) + [None] * (7 - len(node.args))
    x, kernel, stride, padding, ceil_mode, count_include_pad, divisor = args[:7]
    kernel = _pair(kernel, ())
    stride, padding = _pair(stride, kernel), _pair(padding, (0, 0))
    count_include_pad = True if count_include_pad is None else count_include_pad
    if ceil_mode or divisor is not None or len(lw.shape(x)) != 4:
        raise Refusal("ceil-mode, divisor_override or non-4-D average pooling")
    if count_include_pad and padding != [0, 0]:
        raise Refusal("average pooling that counts padding")
    qt, quantizers = _avg_pool(lw, node, x, kernel, stride, padding, lw.shape(node))
    lw.set_output(quantizers, qt, [node])


def lower_adaptive_avg_pool(lw, node: Node) -> None:
    x = node.args[0]
    n, c, h, w = lw.shape(x)
    oh, ow = lw.shape(node)[2:]
    if h % oh or w % ow:
        raise Refusal("adaptive pooling with uneven windows")
    kernel = [h // oh, w // ow]
    qt, quantizers = _avg_pool(lw, node, x, kernel, kernel, [0, 0], lw.shape(node))
    lw.set_output(quantizers, qt, [node])


def lower_mean(lw, node: Node) -> None:
    x, dims = node.args[0], node.args[1]
    keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
    shape = lw.shape(x)
    if len(shape) != 4 or sorted(d % 4 for d in dims) != [2, 3] or node.kwargs.get("dtype") is not None:
        raise Refusal("mean over other dimensions than H and W")
    n, c, h, w = shape
    qt, quantizers = _avg_pool(lw, node, x, [h, w], [h, w], [0, 0], [n, c, 1, 1])
    if not keepdim:
        flat = lw.to_layout(qt, False)
        out = lw.new_tensor(torch.int8, [n, c])
        lw.call(BY_QUALIFIED["aten::view_copy.out"], dict(self=T(flat.index), size=[n, c]), [out])
        qt = QTensor(out, qt.scale, qt.zp, False)
    lw.set_output(quantizers, qt, [node])


def lower_view(lw, node: Node) -> None:
    qx, quantizers = _shared_input(lw, node, node.args[0], node)
    qx = lw.to_layout(qx, False)
    shape = lw.shape(node)
    result = lw.new_tensor(torch.int8, shape)
    lw.call(BY_QUALIFIED["aten::view_copy.out"], dict(self=T(qx.index), size=shape), [result])
    lw.set_output(quantizers, QTensor(result, qx.scale, qx.zp, False), [node])


def lower_permute(lw, node: Node) -> None:
    x = node.args[0]
    rank = len(lw.shape(x))
    qx, quantizers = _shared_input(lw, node, x, node)
    qx = lw.to_layout(qx, False)
    result = lw.new_tensor(torch.int8, lw.shape(node))
    perm = [d % rank for d in node.args[1]]
    if rank > 4:  # CMSIS-NN's transpose stops at 4 dims; the portable one moves int8 bytes at any rank
        lw.call(BY_QUALIFIED["aten::permute_copy.out"], dict(self=T(qx.index), dims=perm), [result])
    else:
        lw.call(cortex_m_op("transpose"), dict(input=T(qx.index), perm=perm), [result])
    lw.set_output(quantizers, QTensor(result, qx.scale, qx.zp, False), [node])


def lower_copy(lw, node: Node) -> None:
    """slice, select, expand, clone: the portable copy kernel (any dtype) on the int8 bytes, the output at
    the input's parameters."""
    qx, quantizers = _shared_input(lw, node, node.args[0], node)
    qx = lw.to_layout(qx, False)
    result = lw.new_tensor(torch.int8, lw.shape(node))
    bound = bind_node(node)
    bound["self"] = T(qx.index)
    lw.call(BY_ATEN[str(node.target)], bound, [result])
    lw.set_output(quantizers, QTensor(result, qx.scale, qx.zp, False), [node])


def lower_split(lw, node: Node) -> None:
    """split_with_sizes: one portable call writing every piece, each at the input's parameters."""
    x, sizes = node.args[0], [int(s) for s in node.args[1]]
    dim = node.args[2] if len(node.args) > 2 else node.kwargs.get("dim", 0)
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("its input is not int8")
    pieces = {u.args[1]: u for u in node.users if u.target == operator.getitem}
    if not pieces:
        raise Refusal("no piece of it is read")
    quantizers = {}
    for i, piece in pieces.items():
        _, _, qs = terminal(piece, fuse=False)
        if match.qparams(qs[0]) != qx.q:
            raise Refusal("a piece's quantization differs from the input's")
        quantizers[i] = qs
    qx = lw.to_layout(qx, False)
    outs = [lw.new_tensor(torch.int8, list(v.shape)) for v in node.meta["val"]]
    lw.call(BY_QUALIFIED["aten::split_with_sizes_copy.out"], dict(self=T(qx.index), split_sizes=sizes, dim=dim), outs)
    consumed = [node]  # the split itself, with the first piece
    for i, qs in quantizers.items():
        lw.set_output(qs, QTensor(outs[i], qx.scale, qx.zp, False), consumed + [pieces[i]])
        consumed = []


def lower_pad(lw, node: Node) -> None:
    x, pads = node.args[0], list(node.args[1])
    value = node.args[2] if len(node.args) > 2 else 0.0
    rank = len(lw.shape(x))
    if rank > 4 or len(pads) % 2 or len(pads) // 2 > rank or any(p < 0 for p in pads):
        raise Refusal("padding of more than 4 dimensions or negative padding")
    qx, quantizers = _shared_input(lw, node, x, node)
    pre, post = [0] * 4, [0] * 4  # logical dims, right-aligned to 4
    for i in range(len(pads) // 2):
        pre[3 - i], post[3 - i] = int(pads[2 * i]), int(pads[2 * i + 1])
    if qx.cl:  # amounts in memory order
        pre, post = [pre[d] for d in CHANNELS_LAST], [post[d] for d in CHANNELS_LAST]
    result = lw.new_tensor(torch.int8, lw.shape(node), qx.cl)
    lw.call(
        cortex_m_op("pad"),
        dict(input=T(qx.index), pre_pad=pre, post_pad=post, pad_value=match.quantize_value(float(value or 0.0), qx.q)),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, qx.scale, qx.zp, qx.cl), [node])


def lower_cat(lw, node: Node) -> None:
    tensors = node.args[0]
    dim = node.args[1] if len(node.args) > 1 else 0
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    parts = []
    for t in tensors:
        qt = lw.qinput(t)
        if qt is None:
            raise Refusal("an input is not int8")
        parts.append(T(lw.requantize(lw.to_layout(qt, False), out).index))
    result = lw.new_tensor(torch.int8, lw.shape(node))
    lw.emit(
        BY_QUALIFIED["aten::cat.out"],
        [lw.table.tensor_list([p.index for p in parts]), lw.table.int(dim), result, result],
        node,
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, False), [node])
