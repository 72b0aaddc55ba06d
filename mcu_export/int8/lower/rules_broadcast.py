"""add, sub, mul, div, minimum and maximum under broadcasting, and with a scalar operand, as cortex_m int8 kernels.

Two int8 operands of any broadcastable shapes go to quantized_add / quantized_mul, which walk the
broadcast in runs (runtime_c/kernels/cortex_m/util/mx_cm_binary.h); sub is add with the second
operand's multiplier negated, as TFLite and CMSIS-NN do it. The output takes the layout of an operand
of the output's shape, so a squeeze-and-excite `x * s` on a channels-last x multiplies runs of C.

With a number as the other operand the op is a function of one int8 value: a 256-entry table
(rules_scalar.py), which is what PT2E's graph computes, entry for entry (TOSA lowers such ops to TABLE too). Division by a tensor is ExecuTorch's
cortex_m::quantized_div (CMSIS-NN has none): the zero-point-corrected quotient in float32, scaled once.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import Refusal, activation_range, terminal
from mcu_export.int8.lower.rules_scalar import lower_scalar_table, scalar_split
from mcu_export.int8.reference.elementwise import add_params, mul_params

aten = torch.ops.aten

SUB = (aten.sub.Tensor, aten.sub_.Tensor, aten.rsub.Scalar)


def _operands(lw, node: Node):
    """Both operands as int8 values; the output's layout is that of an operand of the output's shape."""
    qa, qb = lw.qinput(node.args[0]), lw.qinput(node.args[1])
    if qa is None or qb is None:
        raise Refusal("an operand is not int8")
    shape = list(lw.shape(node))
    for q in (qa, qb):
        sizes = list(lw.table.values[q.index].sizes)
        if len(sizes) > len(shape) or torch.broadcast_shapes(tuple(sizes), tuple(shape)) != tuple(shape):
            raise Refusal(f"operand shape {sizes} does not broadcast to {shape}")
    full = [q for q in (qa, qb) if list(lw.table.values[q.index].sizes) == shape]
    cl = bool(full) and full[0].cl and len(shape) == 4
    qa, qb = (lw.to_layout(q, cl) if len(lw.table.values[q.index].sizes) == 4 else q for q in (qa, qb))
    return qa, qb, cl


def lower_add(lw, node: Node) -> None:
    split = scalar_split(lw, node)
    if split is not None:
        lower_scalar_table(lw, node, split)
        return
    if node.kwargs.get("alpha", 1) != 1:
        raise Refusal("add with alpha")
    last, act, quantizers = terminal(node)
    out = match.qparams(quantizers[0])
    qa, qb, cl = _operands(lw, node)
    p = add_params(qa.scale, qa.zp, qb.scale, qb.zp, out.scale, out.zp)
    if node.target in SUB:
        p["input_2_mult"] = -p["input_2_mult"]  # a - b = a + (-1) * b: the sign rides on b's multiplier
    if p["out_shift"] > 0:  # left shift of the int32 sum: it could wrap (see ExecuTorch's add lowering)
        raise Refusal("the output scale is so small against the operands' that int32 requantization could wrap")
    act_min, act_max = activation_range(act, out)
    result = lw.new_tensor(torch.int8, lw.shape(last), cl)
    lw.call(
        cortex_m_op("quantized_add"),
        dict(
            self=T(qa.index),
            self_zero_point=qa.zp,
            self_multiplier=p["input_1_mult"],
            self_shift=p["input_1_shift"],
            other=T(qb.index),
            other_zero_point=qb.zp,
            other_multiplier=p["input_2_mult"],
            other_shift=p["input_2_shift"],
            output_zero_point=out.zp,
            output_multiplier=p["out_mult"],
            output_shift=p["out_shift"],
            activation_min=act_min,
            activation_max=act_max,
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, cl), [node] + ([act] if act else []))


def _two_operands(lw, node: Node, op: str, params) -> None:
    """`op` on two int8 operands (or one table for a one-value constant): the zero points, then `params(qa, qb, out)`."""
    split = scalar_split(lw, node)
    if split is not None:
        lower_scalar_table(lw, node, split)
        return
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    qa, qb, cl = _operands(lw, node)
    result = lw.new_tensor(torch.int8, lw.shape(node), cl)
    args = dict(self=T(qa.index), self_zero_point=qa.zp, other=T(qb.index), other_zero_point=qb.zp)
    args.update(output_zero_point=out.zp, **params(qa, qb, out))
    lw.call(cortex_m_op(op), args, [result])
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, cl), [node])


def _mul_params(qa, qb, out) -> dict:
    p = mul_params(qa.scale, qa.zp, qb.scale, qb.zp, out.scale, out.zp)
    return dict(output_multiplier=p["out_mult"], output_shift=p["out_shift"])


def lower_mul(lw, node: Node) -> None:
    _two_operands(lw, node, "quantized_mul", _mul_params)


def lower_div(lw, node: Node) -> None:
    _two_operands(lw, node, "quantized_div", lambda qa, qb, out: dict(output_scale=qa.scale / (qb.scale * out.scale)))


def lower_min_max(lw, node: Node) -> None:
    """minimum / maximum compare raw int8 values, so both operands are first made the output's (a table
    lookup each, none when the quantizer shared one observer among them, as it does)."""
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    qa, qb, cl = _operands(lw, node)
    qa, qb = lw.requantize(qa, out), lw.requantize(qb, out)
    result = lw.new_tensor(torch.int8, lw.shape(node), cl)
    name = "minimum" if node.target == aten.minimum.default else "maximum"
    lw.call(cortex_m_op(name), dict(self=T(qa.index), other=T(qb.index)), [result])
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, cl), [node])
