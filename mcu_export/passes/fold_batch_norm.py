"""Fold inference BatchNorm into the convolution or linear layer before it.

conv(x, W, b) followed by BN(gamma, beta, mean, var, eps) equals conv(x, W', b') with
W' = W * s (per output channel), b' = (b - mean) * s + beta and s = gamma / sqrt(var + eps); a linear
layer on [N, F] is the same with one channel per output feature f.
Folded only when the producer's output feeds nothing but the BN (otherwise the unnormalised value
is still needed) and all weights are constants. The new weights become new constants, so a weight
shared with another layer is left untouched.

`fold_linear_batch_norm` is for the int8 path only, where `linear` stays whole: a BN1d there would have no
int8 kernel and cost a dequantize/quantize pair, and its scale would be quantized apart from the weights.
The fp32 path sees linear decomposed to addmm and keeps such a BN as its own kernel.
"""

from __future__ import annotations

import operator

import torch
from torch.export import ExportedProgram

from mcu_export.passes.graph_utils import add_constant, constant_value, finish

aten = torch.ops.aten


def _fold_into(ep: ExportedProgram, bn: torch.fx.Node, producer: torch.fx.Node, name: str) -> bool:
    """Folds `bn` into `producer` (args: input, weight, bias, ...; output channels on the weight's dim 0).
    The caller has checked the pattern; this checks the constants and rewrites the graph."""
    if any(u.target != operator.getitem or u.args[1] != 0 for u in bn.users):
        return False  # the saved mean/invstd outputs are used: keep the BN
    bias_node = producer.args[2] if len(producer.args) > 2 else None
    weight = constant_value(ep, producer.args[1])
    bias = constant_value(ep, bias_node) if bias_node is not None else None
    gamma, beta, mean, var = (constant_value(ep, a) if a is not None else None for a in bn.args[1:5])
    if weight is None or mean is None or var is None:
        return False
    if (
        (bias_node is not None and bias is None)
        or (bn.args[1] is not None and gamma is None)
        or (bn.args[2] is not None and beta is None)
    ):
        return False

    # In float64, so that the folded weights are the float32 rounding of the exact product.
    scale = torch.rsqrt(var.double() + bn.args[6])
    if gamma is not None:
        scale = scale * gamma.double()
    shift = -mean.double() * scale
    if bias is not None:
        shift = shift + bias.double() * scale
    if beta is not None:
        shift = shift + beta.double()
    new_weight = (weight.double() * scale.reshape(-1, *([1] * (weight.dim() - 1)))).to(weight.dtype)
    new_bias = shift.to(weight.dtype)

    graph = ep.graph_module.graph
    with graph.inserting_before(producer):
        w_node = add_constant(ep, new_weight, f"folded_{name}_weight")
        b_node = add_constant(ep, new_bias, f"folded_{name}_bias")
    producer.args = (producer.args[0], w_node, b_node, *producer.args[3:])
    for user in list(bn.users):
        user.replace_all_uses_with(producer)
        graph.erase_node(user)
    graph.erase_node(bn)
    return True


def _is_conv(node: torch.fx.Node) -> bool:
    # Transposed convolutions keep output channels in dim 1.
    return node.target == aten.convolution.default and not node.args[6]


def _is_2d_linear(node: torch.fx.Node) -> bool:
    return node.target == aten.linear.default and len(node.meta["val"].shape) == 2


def _fold_after(ep: ExportedProgram, accepts, name: str) -> None:
    for node in list(ep.graph_module.graph.nodes):
        if node.op != "call_function" or node.target != aten._native_batch_norm_legit_no_training.default:
            continue
        producer = node.args[0]
        if isinstance(producer, torch.fx.Node) and len(producer.users) == 1 and accepts(producer):
            _fold_into(ep, node, producer, name)
    finish(ep)


def fold_batch_norm(ep: ExportedProgram) -> None:
    _fold_after(ep, _is_conv, "conv")


def fold_linear_batch_norm(ep: ExportedProgram) -> None:
    _fold_after(ep, _is_2d_linear, "linear")
