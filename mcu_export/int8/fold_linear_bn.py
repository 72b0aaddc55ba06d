"""Fold inference BatchNorm1d into the linear layer before it (int8 path, before quantization).

The fp32 path keeps such a BN as its own kernel; in int8 it would have no kernel and cost a
dequantize/quantize pair, and its scale would be quantized separately from the weights. On a [N, F]
linear output, BN normalises each feature f: W'[f] = W[f] * s[f], b'[f] = (b[f] - mean[f]) * s[f] + beta[f]
with s = gamma / sqrt(var + eps).
"""
from __future__ import annotations

import operator

import torch
from torch.export import ExportedProgram

from mcu_export.passes.graph_utils import add_constant, constant_value, finish

aten = torch.ops.aten


def _fold_one(ep: ExportedProgram, bn: torch.fx.Node) -> bool:
    linear = bn.args[0]
    if not (isinstance(linear, torch.fx.Node) and linear.target == aten.linear.default):
        return False
    if len(linear.users) != 1 or len(linear.meta["val"].shape) != 2:
        return False
    if any(u.target != operator.getitem or u.args[1] != 0 for u in bn.users):
        return False
    weight = constant_value(ep, linear.args[1])
    bias_node = linear.args[2] if len(linear.args) > 2 else None
    bias = constant_value(ep, bias_node) if bias_node is not None else None
    gamma, beta, mean, var = (constant_value(ep, a) if a is not None else None for a in bn.args[1:5])
    if weight is None or mean is None or var is None or (bias_node is not None and bias is None):
        return False
    if (bn.args[1] is not None and gamma is None) or (bn.args[2] is not None and beta is None):
        return False
    scale = torch.rsqrt(var.double() + bn.args[6])
    if gamma is not None:
        scale = scale * gamma.double()
    shift = -mean.double() * scale
    if bias is not None:
        shift = shift + bias.double() * scale
    if beta is not None:
        shift = shift + beta.double()
    graph = ep.graph_module.graph
    with graph.inserting_before(linear):
        w_node = add_constant(ep, (weight.double() * scale[:, None]).to(weight.dtype), "folded_linear_weight")
        b_node = add_constant(ep, shift.to(weight.dtype), "folded_linear_bias")
    linear.args = (linear.args[0], w_node, b_node)
    for user in list(bn.users):
        user.replace_all_uses_with(linear)
        graph.erase_node(user)
    graph.erase_node(bn)
    return True


def fold_linear_batch_norm(ep: ExportedProgram) -> None:
    for node in list(ep.graph_module.graph.nodes):
        if node.op == "call_function" and node.target == aten._native_batch_norm_legit_no_training.default:
            _fold_one(ep, node)
    finish(ep)
