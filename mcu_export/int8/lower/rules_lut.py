"""Single-input float functions (gelu, leaky_relu, elu, silu, ...) and silu's `x * sigmoid(x)` as one
cortex_m::quantized_activation each: a 256-entry table of quantize(f(dequantize(q))), where f is the node's
own torch operator evaluated in float32 on the 256 dequantized inputs, which is what the fake-quantized
graph computes for each of them."""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower import rules_elementwise as ew
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.rules_common import Refusal, terminal
from mcu_export.int8.quantizer_extra import FLOAT_LUT_FUNCTIONS
from mcu_export.int8.reference.lut import build_lut

aten = torch.ops.aten


_OUT_OF_PLACE = {
    aten.leaky_relu_.default: aten.leaky_relu.default,
    aten.elu_.default: aten.elu.default,
    aten.silu_.default: aten.silu.default,
}


def _torch_function(node: Node) -> Callable[[np.ndarray], np.ndarray]:
    for arg in list(node.args[1:]) + list(node.kwargs.values()):
        if isinstance(arg, Node):
            raise Refusal("an argument other than the input is not a constant")
    target = _OUT_OF_PLACE.get(node.target, node.target)

    def fn(x: np.ndarray) -> np.ndarray:
        return target(torch.from_numpy(x), *node.args[1:], **node.kwargs).numpy()

    return fn


def _silu(x: np.ndarray) -> np.ndarray:
    t = torch.from_numpy(x)
    return (t * torch.sigmoid(t)).numpy()  # the order torch.export writes it: mul(x, sigmoid(x))


def _table_call(lw, node: Node, last: Node, fn, consumed) -> None:
    qx = lw.qinput(node.args[0])
    if qx is None:
        raise Refusal("its input is not int8")
    _, _, quantizers = terminal(last, fuse=False)
    out = match.qparams(quantizers[0])
    lut = build_lut(fn, qx.scale, qx.zp, out.scale, out.zp)
    result = lw.new_tensor(torch.int8, lw.shape(last), qx.cl)
    lw.call(
        cortex_m_op("quantized_activation"), dict(input=T(qx.index), lut=T(lw.const(torch.from_numpy(lut)))), [result]
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, qx.cl), consumed)


def lower_float_function(lw, node: Node) -> None:
    _table_call(lw, node, node, _torch_function(node), [node])


def lower_sigmoid(lw, node: Node) -> None:
    """sigmoid alone is ew.lower_lut's; feeding `x * sigmoid(x)` with x at the same int8 value, one silu table."""
    mul = next(iter(node.users)) if len(node.users) == 1 else None
    if mul is None or mul.target != aten.mul.Tensor or match.output_quantizers(node) is not None:
        return ew.lower_lut(lw, node)
    other = mul.args[1] if mul.args[0] is node else mul.args[0]
    qx, q_other = lw.qinput(node.args[0]), lw.qinput(other)
    if qx is None or q_other is None or qx != q_other:
        raise Refusal("silu's two reads of x are not the same int8 value")
    _table_call(lw, node, mul, _silu, [node, mul])


RULES = {t: lower_float_function for t in FLOAT_LUT_FUNCTIONS}
RULES[aten.sigmoid.default] = lower_sigmoid
