"""A BatchNorm no conv/linear absorbs (first layer, after an activation) in int8 without fp32 fallback: a
1x1 depthwise convolution with per-channel multipliers; host C runtime == reference interpreter bit for
bit, both close to fp32 torch, for [N, C], [N, C, L] and [N, C, H, W]."""

import pytest
import torch
from torch import nn

from int8_export_check import check_against_fake_quant, check_int8

DW = "cortex_m::quantized_depthwise_conv2d.out"


def _randomize(model):
    torch.manual_seed(3)
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.3, 2.0)
            m.weight.data.uniform_(-1.5, 1.5)
            m.bias.data.uniform_(-0.3, 0.3)
    return model.eval()


class Features(nn.Module):  # BatchNorm1d as the input layer of an MLP, and after a folded-in Linear
    def __init__(self):
        super().__init__()
        self.bn0, self.lin, self.bn1 = nn.BatchNorm1d(6), nn.Linear(6, 8), nn.BatchNorm1d(8)

    def forward(self, x):
        return torch.relu(self.bn1(self.lin(self.bn0(x))))


class Image(nn.Module):  # BatchNorm2d first and after a ReLU (not foldable into the conv)
    def __init__(self):
        super().__init__()
        self.bn0, self.conv, self.bn1 = nn.BatchNorm2d(3), nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn1(torch.relu(self.conv(self.bn0(x))))


class Sequence(nn.Module):  # BatchNorm1d over [N, C, L] first, then a Conv1d
    def __init__(self):
        super().__init__()
        self.bn0, self.conv = nn.BatchNorm1d(5), nn.Conv1d(5, 4, 3)

    def forward(self, x):
        return self.conv(self.bn0(x))


@pytest.mark.parametrize(
    "model,shape",
    [
        pytest.param(Features, (4, 6), marks=pytest.mark.slow),  # each calibrates and checks for ~3 s
        pytest.param(Image, (1, 3, 8, 8), marks=pytest.mark.slow),
        pytest.param(Image, (2, 3, 6, 6), marks=pytest.mark.slow),
        pytest.param(Sequence, (1, 5, 12), marks=pytest.mark.slow),
        pytest.param(Sequence, (2, 5, 9), marks=pytest.mark.slow),
    ],
    ids=["features", "image", "image-batch2", "sequence", "sequence-batch2"],
)
def test_standalone_batch_norm(model, shape):
    check_int8(_randomize(model()), [shape], ops=[DW])


@pytest.mark.slow
def test_batch_norm_tracks_pt2e_fake_quant():
    check_against_fake_quant(_randomize(Features()), [(4, 6)], lsb=2)


def test_ptq_convert_skips_the_qat_folding_pass(monkeypatch):
    """A standalone BatchNorm made torchao's convert_pt2e trace 96 QAT conv+BN patterns (~100 s an export);
    a post-training graph holds none of them, so convert_ptq leaves the pass out and changes nothing else."""
    import copy

    from torchao.quantization.pt2e import qat_utils, quantize_pt2e
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from mcu_export.int8.convert import convert_ptq
    from mcu_export.int8.prepare import _check_before_quantizing
    from mcu_export.int8.quantizer import CmsisNNQuantizer

    traced = []  # the pattern search, stubbed: each call would export 12 patterns with torch.export
    monkeypatch.setattr(qat_utils, "_fold_conv_bn_qat_helper", lambda m, *a, **k: traced.append(1) or m)
    model, x = _randomize(Image()), torch.randn(1, 3, 8, 8)
    prepared = prepare_pt2e(_check_before_quantizing(model, (x,)).module(check_guards=False), CmsisNNQuantizer())
    prepared(x)
    folding = quantize_pt2e._fold_conv_bn_qat
    torchs = convert_pt2e(copy.deepcopy(prepared))
    assert traced, "torchao no longer searches QAT patterns in this graph: convert_ptq can go"
    traced.clear()
    ours = convert_ptq(prepared)
    assert traced == [] and quantize_pt2e._fold_conv_bn_qat is folding
    assert str(ours.graph) == str(torchs.graph) and torch.equal(ours(x), torchs(x))
