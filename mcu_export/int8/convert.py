"""PT2E convert for post-training quantization, without torchao's QAT conv+BN folding pass.

torchao's `convert_pt2e` runs `_fold_conv_bn_qat` whenever a batch norm is left in the graph: it traces 96 QAT
conv+BN patterns and their replacements with torch.export (about 1 s each) to look for them, so a model with
one standalone BatchNorm took 100 s longer to export. A post-training graph cannot hold those patterns:
`prepare_pt2e` has already folded every conv+BN pair, and a batch norm left over stands alone (lowered as a 1x1
depthwise convolution). For post-training quantization the pass is the identity, which is what torchao itself
does for a graph without batch norms; QAT (`prepare.convert_qat`) keeps it.
"""

from __future__ import annotations

import torch
from torchao.quantization.pt2e import quantize_pt2e


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
