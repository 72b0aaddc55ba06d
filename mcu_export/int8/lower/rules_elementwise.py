"""add, sub, mul, softmax and table-lookup activations as cortex_m int8 kernels.

Elementwise kernels read both operands and write their output in one memory order, so channels-last
operands stay channels-last; operands in different orders are both made contiguous.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import Refusal, activation_range, terminal
from mcu_export.int8.quantizer import constant_bounds
from mcu_export.int8.reference.elementwise import add_params, mul_params
from mcu_export.int8.reference.lut import FUNCTIONS, build_lut
from mcu_export.int8.reference.softmax import softmax_params

aten = torch.ops.aten


def _operands(lw, node: Node):
    """Both operands as int8 values of the output's shape, in one layout."""
    a, b = node.args[0], node.args[1]
    qa, qb = lw.qinput(a), lw.qinput(b)
    if qa is None or qb is None:
        raise Refusal("an operand is not int8")
    shape = lw.shape(node)
    qa, qb = (_full_shape(lw, q, operand, shape) for q, operand in ((qa, a), (qb, b)))
    if qa.cl != qb.cl:
        qa, qb = lw.to_layout(qa, False), lw.to_layout(qb, False)
    return qa, qb


def _full_shape(lw, qt: QTensor, operand: Node, shape) -> QTensor:
    if list(lw.table.values[qt.index].sizes) == list(shape):
        return qt
    data = lw.constant_of(operand.args[0])
    if data is None:  # the kernels do not broadcast
        raise Refusal(f"operand shapes differ ({list(lw.shape(operand))} vs {list(shape)}): no broadcasting kernel")
    return QTensor(lw.const(data.expand(shape).contiguous()), qt.scale, qt.zp, False)


def lower_add(lw, node: Node) -> None:
    if node.kwargs.get("alpha", 1) != 1:
        raise Refusal("add with alpha")
    last, act, quantizers = terminal(node)
    out = match.qparams(quantizers[0])
    qa, qb = _operands(lw, node)
    p = add_params(qa.scale, qa.zp, qb.scale, qb.zp, out.scale, out.zp)
    if node.target in (aten.sub.Tensor, aten.sub_.Tensor):
        p["input_2_mult"] = -p["input_2_mult"]  # a - b = a + (-1) * b: the sign rides on b's multiplier
    if p["out_shift"] > 0:  # left shift of the int32 sum: it could wrap (see ExecuTorch's add lowering)
        raise Refusal("the output scale is so small against the operands' that int32 requantization could wrap")
    act_min, act_max = activation_range(act, out)
    result = lw.new_tensor(torch.int8, lw.shape(last), qa.cl)
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
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, qa.cl), [node] + ([act] if act else []))


def lower_mul(lw, node: Node) -> None:
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    qa, qb = _operands(lw, node)
    p = mul_params(qa.scale, qa.zp, qb.scale, qb.zp, out.scale, out.zp)
    result = lw.new_tensor(torch.int8, lw.shape(node), qa.cl)
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
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, qa.cl), [node])


def lower_softmax(lw, node: Node) -> None:
    x, dim = node.args[0], node.args[1]
    qx = lw.qinput(x)
    if qx is None:
        raise Refusal("its input is not int8")
    rank = len(lw.shape(x))
    if dim % rank != rank - 1:
        raise Refusal("softmax over a dimension other than the last")
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    if abs(out.scale - 1.0 / 256) > 1e-12 or out.zp != -128:
        raise Refusal("softmax output is not quantized at 1/256, -128")
    mult, shift, diff_min = softmax_params(qx.scale)
    qx = lw.to_layout(qx, False)
    result = lw.new_tensor(torch.int8, lw.shape(node))
    lw.call(
        cortex_m_op("softmax"),
        dict(
            input=T(qx.index),
            dim=rank - 1,
            input_zero_point=qx.zp,
            output_zero_point=out.zp,
            input_multiplier=mult,
            input_shift=shift,
            diff_min=diff_min,
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, False), [node])


def _float_function(node: Node):
    t = node.target
    if t in (aten.sigmoid.default,):
        return FUNCTIONS["sigmoid"]
    if t in (aten.tanh.default,):
        return FUNCTIONS["tanh"]
    if t in (aten.hardswish.default, aten.hardswish_.default):
        return FUNCTIONS["hardswish"]
    if t in (aten.hardsigmoid.default, aten.hardsigmoid_.default):
        return lambda x: np.clip(x / np.float32(6.0) + np.float32(0.5), 0.0, 1.0).astype(np.float32)
    bounds = constant_bounds(node)
    if bounds is None:
        return None
    lo, hi = bounds
    return lambda x: np.clip(x, -np.inf if lo is None else lo, np.inf if hi is None else hi).astype(np.float32)


def lower_lut(lw, node: Node) -> None:
    fn = _float_function(node)
    if fn is None:
        raise Refusal("activation bounds are not constants")
    qx = lw.qinput(node.args[0])
    if qx is None:
        raise Refusal("its input is not int8")
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    lut = build_lut(fn, qx.scale, qx.zp, out.scale, out.zp)
    result = lw.new_tensor(torch.int8, lw.shape(node), qx.cl)
    lw.call(
        cortex_m_op("quantized_activation"), dict(input=T(qx.index), lut=T(lw.const(torch.from_numpy(lut)))), [result]
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, qx.cl), [node])
