"""PT2E convert for post-training quantization, without torchao's QAT conv+BN folding pass.

torchao's `convert_pt2e` runs `_fold_conv_bn_qat` whenever a batch norm is left in the graph: it traces 96 QAT
conv+BN patterns and their replacements with torch.export (about 1 s each) to look for them, so a model with
one standalone BatchNorm took 100 s longer to export. A post-training graph cannot hold those patterns:
`prepare_pt2e` has already folded every conv+BN pair, and a batch norm left over stands alone (lowered as a 1x1
depthwise convolution). For post-training quantization the pass is the identity, which is what torchao itself
does for a graph without batch norms. QAT keeps the pass (`convert_qat`), searching only the kinds of
convolution the graph holds.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torchao.quantization.pt2e import qat_utils, quantize_pt2e

aten = torch.ops.aten
# The functions torchao's QAT folding searches patterns of, and the aten op each leaves in a captured graph.
_CONV_KINDS = {
    F.conv1d: aten.conv1d,
    F.conv2d: aten.conv2d,
    F.conv_transpose1d: aten.conv_transpose1d,
    F.conv_transpose2d: aten.conv_transpose2d,
}


def _unchanged(m: torch.fx.GraphModule) -> torch.fx.GraphModule:
    return m


def convert_ptq(prepared: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """`convert_pt2e(prepared)` for a calibrated post-training model."""
    folding = getattr(quantize_pt2e, "_fold_conv_bn_qat", None)
    if folding is None:  # a torchao that moved the pass: still correct, only slower
        return quantize_pt2e.convert_pt2e(prepared)
    quantize_pt2e._fold_conv_bn_qat = _unchanged
    try:
        return quantize_pt2e.convert_pt2e(prepared)
    finally:
        quantize_pt2e._fold_conv_bn_qat = folding


def convert_qat(prepared: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """`convert_pt2e(prepared)` for a QAT model (in eval mode): the conv+BN folding searches only the kinds of
    convolution the graph has. torchao searches all four (conv1d, conv2d and their transposes: 24 patterns
    each, ~10 s a kind idle); a kind the graph does not call cannot match. With no convolution at all, every
    kind is searched as before."""
    helper = qat_utils._fold_conv_bn_qat_helper
    present = {getattr(n.target, "overloadpacket", None) for n in prepared.graph.nodes if n.op == "call_function"}
    kinds = {fn for fn, packet in _CONV_KINDS.items() if packet in present}

    def only_present(m, conv_fn, example_inputs, is_cuda):
        if kinds and conv_fn not in kinds:
            return m
        return helper(m, conv_fn, example_inputs, is_cuda)

    qat_utils._fold_conv_bn_qat_helper = only_present
    try:
        return quantize_pt2e.convert_pt2e(prepared)
    finally:
        qat_utils._fold_conv_bn_qat_helper = helper
