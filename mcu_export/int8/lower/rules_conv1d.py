"""Conv1d and 1-D pooling as the 2-D cortex_m int8 kernels at H = 1 (CMSIS-NN's arm_convolve_wrapper_s8
picks arm_convolve_1_x_n_s8 for such a shape).

A 1-D value [N, C, L] is the 2-D value [N, C, 1, L]; stored channels-last its bytes are [N, L, C], what
the kernels read. Between int8 kernels it stays in that form (the backend's `twins`): a convolution's
result is recorded as the twin of its 3-D value, whose own contiguous tensor is written (transpose, view)
only if a rule or an fp32 kernel reads it. torch exports MaxPool1d/AvgPool1d as unsqueeze(-2) → 2-D pool →
squeeze(-2): the unsqueeze of a value with a twin is the twin, and the squeeze of [N, C, 1, L] makes one.
"""

from __future__ import annotations

from typing import List, Sequence

import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower import rules_layout as lay
from mcu_export.int8.lower import rules_weighted as wt
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.rules_common import Refusal, terminal, weight
from mcu_export.ops.table import BY_QUALIFIED

VIEW = BY_QUALIFIED["aten::view_copy.out"]


def twin_of(lw, x: Node) -> QTensor:
    """The [N, C, 1, L] channels-last form of the 1-D int8 value `x` ([N, C, L]), made once."""
    qx = lw.qinput_deferred(x)
    if qx is None:
        raise Refusal("its input is not int8")
    if qx.index in lw.twins:
        return lw.twins[qx.index]
    flat = lw.to_layout(lw.written(qx), False)
    n, c, length = lw.table.values[flat.index].sizes
    four = lw.new_tensor(torch.int8, [n, c, 1, length])
    lw.call(VIEW, dict(self=T(flat.index), size=[n, c, 1, length]), [four])
    twin = lw.to_layout(QTensor(four, qx.scale, qx.zp, False), True)
    lw.twins[qx.index] = twin
    return twin


def set_1d_output(lw, quantizers: List[Node], twin: QTensor, shape: Sequence[int], consumed: Sequence[Node]) -> None:
    """Records the 1-D value of shape [N, C, L] whose 2-D form is `twin`; its 3-D tensor is deferred."""
    index = lw.new_tensor(torch.int8, list(shape))

    def write() -> None:
        flat = lw.to_layout(twin, False)
        lw.call(VIEW, dict(self=T(flat.index), size=[int(s) for s in shape]), [index])

    lw.pending[index] = write
    lw.twins[index] = twin
    lw.set_output(quantizers, QTensor(index, twin.scale, twin.zp, False), consumed)


def lower_convolution(lw, node: Node) -> None:
    if len(lw.shape(node)) != 3:
        wt.lower_conv(lw, node)
        return
    x, w, b, stride, padding, dilation, transposed, _out_pad, groups = node.args
    if transposed:
        raise Refusal("transposed convolution has no int8 kernel here")
    twin = twin_of(lw, x)
    last, act, quantizers = terminal(node)
    out = match.qparams(quantizers[0])
    n, c_out, length = lw.shape(node)
    wq, wscales = weight(lw, w, c_out)
    geometry = ((1, int(stride[0])), (0, int(padding[0])), (1, int(dilation[0])))
    in_shape = lw.table.values[twin.index].sizes
    result = wt.conv_call(
        lw, twin, wq.unsqueeze(2), wscales, b, geometry, groups, in_shape, [n, c_out, 1, length], act, out
    )
    set_1d_output(lw, quantizers, QTensor(result, out.scale, out.zp, True), [n, c_out, length], [node, last])


def lower_unsqueeze(lw, node: Node) -> None:
    x, dim = node.args[0], node.args[1]
    qx = lw.qinput_deferred(x)
    if qx is not None and qx.index in lw.twins and dim % 4 == 2:  # [N, C, L] -> [N, C, 1, L]
        _, _, quantizers = terminal(node, fuse=False)
        if match.qparams(quantizers[0]) == qx.q:
            lw.set_output(quantizers, lw.twins[qx.index], [node])
            return
    lay.lower_view(lw, node)


def lower_squeeze(lw, node: Node) -> None:
    x = node.args[0]
    shape = lw.shape(x)
    qx = lw.qinput_deferred(x)
    drops_h = len(shape) == 4 and shape[2] == 1 and list(lw.shape(node)) == [shape[0], shape[1], shape[3]]
    if qx is not None and drops_h:
        _, _, quantizers = terminal(node, fuse=False)
        if match.qparams(quantizers[0]) == qx.q:
            twin = lw.to_layout(lw.written(qx), True)
            set_1d_output(lw, quantizers, twin, lw.shape(node), [node])
            return
    lay.lower_view(lw, node)
