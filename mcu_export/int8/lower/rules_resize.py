"""Upsampling of int8 values. Nearest-neighbour moves elements, so it runs on the quantized bytes with the
input's scale and zero point (the quantizer shares them), through the portable kernel, which copies any dtype;
it works on contiguous NCHW (what the kernel's indices mean), so a channels-last input is transposed first.
Bilinear also shares the input's qparams (its values are convex combinations of the input's) and runs as
cortex_m quantized_upsample_bilinear2d (TOSA's integer RESIZE: mcu_export/int8/reference/bilinear.py) in
the input's layout."""

from __future__ import annotations

import torch
from torch.fx import Node

from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import Refusal
from mcu_export.int8.lower.rules_layout import _shared_input
from mcu_export.int8.reference.bilinear import MAX_WEIGHT, axis_scale
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


def lower_upsample_bilinear(lw, node: Node) -> None:
    out_shape = lw.shape(node)
    if len(out_shape) != 4:
        raise Refusal("bilinear upsampling of other than NCHW input")
    bound = bind_node(node)
    in_hw = lw.shape(bound["input"])[2:]
    align = bool(bound.get("align_corners"))
    scales = bound.get("scale_factors")
    if scales is not None and not align and any(i * float(s) != o for i, s, o in zip(in_hw, scales, out_shape[2:])):
        raise Refusal("bilinear upsampling by a scale factor that does not give a whole output size")
    ny, nx = (axis_scale(i, o, align)[0] for i, o in zip(in_hw, out_shape[2:]))
    if ny * nx > MAX_WEIGHT:
        raise Refusal(f"bilinear upsampling to {out_shape[2:]}: integer weights past {MAX_WEIGHT}")
    qx, quantizers = _shared_input(lw, node, bound["input"], node)
    result = lw.new_tensor(torch.int8, out_shape, cl=qx.cl)
    lw.call(cortex_m_op("quantized_upsample_bilinear2d"), dict(input=T(qx.index), align_corners=align), [result])
    lw.set_output(quantizers, QTensor(result, qx.scale, qx.zp, qx.cl), [node])
