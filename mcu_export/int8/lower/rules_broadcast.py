"""add, sub, mul, div, minimum and maximum under broadcasting, and with a scalar operand, as cortex_m int8 kernels.

Two int8 operands of any broadcastable shapes go to quantized_add / quantized_mul, which walk the
broadcast in runs (runtime_c/kernels/cortex_m/util/mx_cm_binary.h); sub is add with the second
operand's multiplier negated, as TFLite and CMSIS-NN do it. The output takes the layout of an operand
of the output's shape, so a squeeze-and-excite `x * s` on a channels-last x multiplies runs of C.

With a number as the other operand the op is a function of one int8 value: a 256-entry table
(quantized_activation) of dequantize -> the float op -> quantize, which is what PT2E's graph computes,
entry for entry (TOSA lowers such ops to TABLE too). Division by a tensor is ExecuTorch's
cortex_m::quantized_div (CMSIS-NN has none): the zero-point-corrected quotient in float32, scaled once.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import Refusal, activation_range, terminal
from mcu_export.int8.reference.elementwise import add_params, mul_params
from mcu_export.int8.reference.lut import build_lut

aten = torch.ops.aten

SUB = (aten.sub.Tensor, aten.sub_.Tensor, aten.rsub.Scalar)


def _number(lw, v):
    """The float32 value of a number operand: a Python number, or a one-element constant (a number that
    scalars_to_tensors made a tensor, dequantized if the quantizer observed it), else None."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return np.float32(v)
    if not isinstance(v, Node):
        return None
    if match.is_dq(v):
        data = lw.constant_of(v.args[0])
        if data is None or data.numel() != 1 or data.dtype != torch.int8:
            return None
        q = match.qparams(v)
        return (np.float32(int(data.reshape(-1)[0]) - q.zp) * np.float32(q.scale)).astype(np.float32)
    data = lw.constant_of(v)
    if data is None or data.numel() != 1 or not data.is_floating_point():
        return None
    return np.float32(float(data.reshape(-1)[0]))


def _scalar_function(lw, node: Node):
    """(tensor operand, float32 function of it) when one operand is a number, else None: the float op as
    PT2E's graph computes it on the dequantized operand."""
    a, b = node.args[0], node.args[1]
    na, nb = _number(lw, a), _number(lw, b)
    if (na is None) == (nb is None):
        return None
    if node.kwargs.get("alpha", 1) != 1:
        raise Refusal("add/sub with alpha")
    x, k = (b, na) if na is not None else (a, nb)
    reversed_operands = (na is not None) != (node.target == aten.rsub.Scalar)
    t = node.target
    if t in SUB:
        return x, (lambda v: k - v) if reversed_operands else (lambda v: v - k)
    if t in (aten.add.Tensor, aten.add_.Tensor):
        return x, lambda v: v + k
    if t in (aten.mul.Tensor, aten.mul_.Tensor):
        return x, lambda v: v * k
    if t == aten.div.Tensor:
        return x, (lambda v: k / v) if reversed_operands else (lambda v: v / k)
    return None


def _lower_scalar(lw, node: Node, x: Node, fn) -> None:
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("its input is not int8")
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        lut = build_lut(lambda v: np.asarray(fn(v), dtype=np.float32), qx.scale, qx.zp, out.scale, out.zp)
    result = lw.new_tensor(torch.int8, lw.shape(node), qx.cl)
    lw.call(
        cortex_m_op("quantized_activation"), dict(input=T(qx.index), lut=T(lw.const(torch.from_numpy(lut)))), [result]
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, qx.cl), [node])


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
    scalar = _scalar_function(lw, node)
    if scalar is not None:
        _lower_scalar(lw, node, *scalar)
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


def lower_mul(lw, node: Node) -> None:
    scalar = _scalar_function(lw, node)
    if scalar is not None:
        _lower_scalar(lw, node, *scalar)
        return
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    qa, qb, cl = _operands(lw, node)
    p = mul_params(qa.scale, qa.zp, qb.scale, qb.zp, out.scale, out.zp)
    result = lw.new_tensor(torch.int8, lw.shape(node), cl)
    lw.call(
        cortex_m_op("quantized_mul"),
        dict(
            self=T(qa.index),
            self_zero_point=qa.zp,
            other=T(qb.index),
            other_zero_point=qb.zp,
            output_zero_point=out.zp,
            output_multiplier=p["out_mult"],
            output_shift=p["out_shift"],
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, cl), [node])


def lower_div(lw, node: Node) -> None:
    scalar = _scalar_function(lw, node)
    if scalar is not None:
        _lower_scalar(lw, node, *scalar)
        return
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    qa, qb, cl = _operands(lw, node)
    result = lw.new_tensor(torch.int8, lw.shape(node), cl)
    lw.call(
        cortex_m_op("quantized_div"),
        dict(
            self=T(qa.index),
            self_zero_point=qa.zp,
            other=T(qb.index),
            other_zero_point=qb.zp,
            output_zero_point=out.zp,
            output_scale=qa.scale / (qb.scale * out.scale),
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, cl), [node])


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
