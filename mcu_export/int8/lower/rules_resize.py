"""Upsampling of int8 values. Nearest-neighbour moves elements, so it runs on the quantized bytes with the
input's scale and zero point (the quantizer shares them), through the portable kernel, which copies any dtype;
it works on contiguous NCHW (what the kernel's indices mean), so a channels-last input is transposed first."""

from __future__ import annotations

import torch
from torch.fx import Node

from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.rules_common import Refusal
from mcu_export.int8.lower.rules_layout import _shared_input
from mcu_export.lower.args import bind_node
from mcu_export.ops.table import BY_QUALIFIED

_NEAREST = BY_QUALIFIED["aten::upsample_nearest2d.vec_out"]


def lower_upsample_nearest(lw, node: Node) -> None:
    if len(lw.shape(node)) != 4:
        raise Refusal("nearest upsampling of other than NCHW input")
    bound = bind_node(node)
    qx, quantizers = _shared_input(lw, node, bound["input"], node)
    qx = lw.to_layout(qx, False)
    result = lw.new_tensor(torch.int8, lw.shape(node))
    named = dict(input=T(qx.index), output_size=bound.get("output_size"), scale_factors=bound.get("scale_factors"))
    lw.call(_NEAREST, named, [result])
    lw.set_output(quantizers, QTensor(result, qx.scale, qx.zp, False), [node])
