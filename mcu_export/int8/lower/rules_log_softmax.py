"""log_softmax over the last dim (or C of a channels-last value) as cortex_m::log_softmax: the integer arithmetic of
int8/reference/log_softmax.py (ours; CMSIS-NN has no log-softmax), output fixed at 16/256, 127."""

from __future__ import annotations

import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import Refusal, terminal
from mcu_export.int8.reference.log_softmax import MAX_ROW, OUTPUT_SCALE, OUTPUT_ZERO_POINT
from mcu_export.int8.reference.softmax import softmax_params


def lower_log_softmax(lw, node: Node) -> None:
    x, dim = node.args[0], node.args[1]
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("its input is not int8")
    shape = lw.shape(x)
    rank = len(shape)
    if rank == 0:
        raise Refusal("log_softmax of a 0-d tensor")
    dim %= rank
    # over C of a channels-last value: C is its innermost memory dim, so the rows are there already
    over_channels = rank == 4 and dim == 1 and lw.is_cl(qx.index)
    if dim != rank - 1 and not over_channels:
        raise Refusal("log_softmax over a dimension other than the last (or C of a channels-last value)")
    if shape[dim] > MAX_ROW:
        raise Refusal(f"log_softmax over more than {MAX_ROW} values")
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    if abs(out.scale - OUTPUT_SCALE) > 1e-12 or out.zp != OUTPUT_ZERO_POINT:
        raise Refusal(f"log_softmax output is not quantized at {OUTPUT_SCALE}, {OUTPUT_ZERO_POINT}")
    try:
        mult, shift, diff_min = softmax_params(qx.scale)
    except ValueError as why:
        raise Refusal(str(why).replace("softmax", "log_softmax")) from None
    if not over_channels:
        qx = lw.to_layout(qx, False)
    result = lw.new_tensor(torch.int8, lw.shape(node), over_channels)
    lw.call(
        cortex_m_op("log_softmax"),
        dict(input=T(qx.index), dim=dim, input_multiplier=mult, input_shift=shift, diff_min=diff_min),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, over_channels), [node])
