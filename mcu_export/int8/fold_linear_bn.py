"""Fold inference BatchNorm1d into the linear layer before it (int8 path, before quantization).

The fp32 path keeps such a BN as its own kernel; in int8 it would have no kernel and cost a
dequantize/quantize pair, and its scale would be quantized separately from the weights. On a [N, F]
linear output, BN normalises each feature f: W'[f] = W[f] * s[f], b'[f] = (b[f] - mean[f]) * s[f] + beta[f]
with s = gamma / sqrt(var + eps).
"""
from __future__ import annotations

import torch
from torch.export import ExportedProgram

from mcu_export.passes.fold_batch_norm import fold_into
from mcu_export.passes.graph_utils import finish

aten = torch.ops.aten


def _fold_one(ep: ExportedProgram, bn: torch.fx.Node) -> bool:
    linear = bn.args[0]
    if not (isinstance(linear, torch.fx.Node) and linear.target == aten.linear.default):
        return False
    if len(linear.users) != 1 or len(linear.meta["val"].shape) != 2:
        return False
    return fold_into(ep, bn, linear, "linear")


def fold_linear_batch_norm(ep: ExportedProgram) -> None:
    for node in list(ep.graph_module.graph.nodes):
        if node.op == "call_function" and node.target == aten._native_batch_norm_legit_no_training.default:
            _fold_one(ep, node)
    finish(ep)
