"""Annotations CmsisNNQuantizer adds for attention, LayerNorm, table-lookup activations and recurrent cells.

- bmm / mm of two float activations: both operands and the output (one int8 batch matmul).
- LayerNorm: its input and its normalized output (mean and rstd stay unobserved).
- single-input float functions (gelu, leaky_relu, elu, ...): input and output (one lookup table each).
- silu as torch.export writes it, `x * sigmoid(x)`: x and the product only, so that the pair becomes one
  table (nothing is observed between sigmoid and mul).
- log_softmax: its input, and its output at the fixed 16/256, 127 of the int8 kernel.
- PReLU as torch.export writes it, `where(x > 0, x, weight * x)`: x and the where's output only (weight
  stays float: the lowering turns it into one table or per-channel multipliers); the training IR's (QAT)
  prelu, x and its output.
- embedding: the weight table (per tensor) and rows gathered from it, which share its parameters.
- slice, select, split_with_sizes (and its getitems), expand: outputs share their input's parameters,
  so GRU/LSTM cells, which torch.export unrolls into them, stay int8 between their linear layers.
"""

from __future__ import annotations

import operator
from typing import Iterable

import torch
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from mcu_export.int8.qspecs import log_softmax_output_spec

aten = torch.ops.aten

MATMUL = {aten.bmm.default, aten.mm.default}  # not aten.matmul (QAT): its core-ATen views around bmm are float
LAYER_NORM = {aten.native_layer_norm.default, aten.layer_norm.default}
# Functions of one float tensor (plus constant scalars) that a 256-entry table computes exactly as the
# fake-quantized graph does: the lowering evaluates the node's own target on the 256 dequantized values.
# The composite ones (silu, selu, celu, softplus, mish) stay whole in the int8 capture
# (int8/prepare.py: KEPT_WHOLE_FOR_TABLES), which would otherwise decompose them into several ops.
FLOAT_LUT_FUNCTIONS = {
    aten.gelu.default,
    aten.leaky_relu.default,
    aten.leaky_relu_.default,
    aten.elu.default,
    aten.elu_.default,
    aten.silu.default,
    aten.silu_.default,
    aten.selu.default,
    aten.celu.default,
    aten.softplus.default,
    aten.mish.default,
    aten.exp.default,
    aten.erf.default,
    aten.abs.default,
    aten.neg.default,
}
KEPT_WHOLE_FOR_TABLES = ("aten.silu", "aten.selu", "aten.celu", "aten.softplus", "aten.mish")
SHARED_MOVES = {
    aten.slice.Tensor,
    aten.slice_copy.Tensor,
    aten.select.int,
    aten.select_copy.int,
    aten.expand.default,
    aten.expand_copy.default,
    aten.transpose.int,  # the training IR's (QAT) kᵀ; core ATen writes a permute, shared already
    aten.t.default,
}
EMBEDDING = {aten.embedding.default}
LOG_SOFTMAX = {aten.log_softmax.int, aten._log_softmax.default}
SPLIT = {aten.split_with_sizes.default, aten.split.Tensor, aten.split_with_sizes_copy.default}


def _float(node) -> bool:
    val = node.meta.get("val") if isinstance(node, Node) else None
    return isinstance(val, torch.Tensor) and val.dtype == torch.float32


def silu_mul(sigmoid: Node):
    """The mul of `x * sigmoid(x)` (either operand order) that `sigmoid` feeds alone, or None."""
    if sigmoid.target != aten.sigmoid.default or len(sigmoid.users) != 1:
        return None
    mul = next(iter(sigmoid.users))
    if mul.op != "call_function" or mul.target != aten.mul.Tensor or len(mul.args) != 2:
        return None
    other = mul.args[1] if mul.args[0] is sigmoid else mul.args[0]
    return mul if other is sigmoid.args[0] and other is not sigmoid else None


def prelu_parts(where: Node, weight_ops=("get_attr", "placeholder")):
    """The gt, mul and weight views of `where(x > 0, x, weight * x)` (PReLU as torch.export writes it; the
    mul's operands in either order, the weight views of a node of `weight_ops`: a parameter is a get_attr in
    the module the quantizer sees, a placeholder in the captured program the lowering sees), or None."""
    if len(where.args) != 3 or not all(isinstance(a, Node) for a in where.args):
        return None
    gt, x, mul = where.args
    if gt.target != aten.gt.Scalar or gt.args[1] != 0 or len(gt.users) != 1 or len(mul.users) != 1:
        return None
    if not (same_value(gt.args[0], x) and mul.target == aten.mul.Tensor and len(mul.args) == 2):
        return None
    if not all(isinstance(a, Node) for a in mul.args):
        return None
    weight = mul.args[0] if same_value(mul.args[1], x) else mul.args[1] if same_value(mul.args[0], x) else None
    views = []
    while weight is not None and weight.target in (aten.view.default, aten.view_copy.default, aten.reshape.default):
        if len(weight.users) != 1:
            return None
        views.append(weight)
        weight = weight.args[0]
    if weight is None or weight.op not in weight_ops or same_value(weight, x):
        return None
    return [gt, mul, *views]


def same_value(a: Node, b: Node) -> bool:
    """The same node, or two dequantize nodes of one quantized value (PT2E gives each user its own)."""
    if a is b:
        return True
    dq = "dequantize_per_tensor"
    return a.op == b.op == "call_function" and dq in str(a.target) and a.target == b.target and a.args == b.args


def annotate(quantizer, nodes: Iterable[Node], annotated, mark) -> None:
    """Runs before CmsisNNQuantizer's own rules (so the silu mul is claimed before the generic mul rule)."""
    act = quantizer.act
    for node in nodes:
        if node.target == aten.where.self and not annotated(node) and prelu_parts(node, ("get_attr",)) is not None:
            # its condition is a bool tensor: before the float-input filter. gt and mul read x observed as
            # the where does (one observer), so that the three reads are one int8 value even for a model input.
            gt, mul, *views = prelu_parts(node)
            x = node.args[1]
            mark(gt, {gt.args[0]: act}, None)
            mark(mul, {a: act for a in mul.args if same_value(a, x)}, None)
            for view in views:
                mark(view, {}, None)
            mark(node, {x: act}, act)
        if annotated(node) or not node.args or not _float(node.args[0]):
            continue
        if node.target == aten.sigmoid.default and silu_mul(node) is not None:
            mul = silu_mul(node)
            if not annotated(mul):
                mark(node, {node.args[0]: act}, None)
                mark(mul, {node.args[0]: act}, act)
        elif node.target in MATMUL and _float(node.args[1]) and not _is_param(node.args[1]):
            mark(node, {node.args[0]: act, node.args[1]: act}, act)
        elif node.target in LOG_SOFTMAX:
            mark(node, {node.args[0]: act}, log_softmax_output_spec(quantizer.qat))
        elif node.target == aten.prelu.default:  # the training IR's (QAT), decomposed after convert
            mark(node, {node.args[0]: act}, act)
        elif node.target in FLOAT_LUT_FUNCTIONS:
            mark(node, {node.args[0]: act}, act)
        elif node.target in LAYER_NORM:
            _layer_norm(node, act, mark)
        elif node.target in SHARED_MOVES:
            mark(node, {node.args[0]: act}, SharedQuantizationSpec((node.args[0], node)))
        elif node.target in EMBEDDING:
            mark(node, {node.args[0]: act}, SharedQuantizationSpec((node.args[0], node)))
        elif node.target in SPLIT:
            shared = SharedQuantizationSpec((node.args[0], node))
            mark(node, {node.args[0]: act}, None)
            for user in node.users:
                if user.target == operator.getitem:
                    mark(user, {}, shared)


def _is_param(node: Node) -> bool:
    """A weight (the prepared module's parameters are get_attr nodes): mm with a weight is a linear layer."""
    return node.op == "get_attr"


def _layer_norm(node: Node, act, mark) -> None:
    x = node.args[0]
    if node.target == aten.layer_norm.default:  # training IR (QAT): one output
        mark(node, {x: act}, act)
        return
    mark(node, {x: act}, None)
    for user in node.users:
        if user.target == operator.getitem and user.args[1] == 0:
            mark(user, {}, act)
