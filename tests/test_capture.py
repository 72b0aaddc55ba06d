"""Capture: core ATen out of torch.export, BN folded by the passes, export failures as one-line errors."""

import pytest
import torch
from torch import nn

import front_models as fm
from mcu_export.capture import capture
from mcu_export.errors import UsageError
from mcu_export.passes import run_passes


def _targets(ep):
    return {str(n.target) for n in ep.graph_module.graph.nodes if n.op == "call_function"}


class ConvBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(6)
        fm.randomise_bn(self.bn)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def test_conv_bn_relu_folds_and_matches_torch():
    torch.manual_seed(0)
    model = ConvBnRelu()
    x = torch.randn(2, 3, 9, 9)
    ep = capture(model, (x,))
    assert "aten._native_batch_norm_legit_no_training.default" in _targets(ep)
    run_passes(ep)
    assert not any("batch_norm" in t for t in _targets(ep))
    assert _targets(ep) == {"aten.convolution.default", "aten.relu.default"}
    with torch.no_grad():
        torch.testing.assert_close(ep.module()(x), model(x), rtol=0, atol=1e-5)


@pytest.mark.slow
def test_capture_puts_model_in_eval_mode_and_keeps_hardswish_whole():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.Hardswish(), nn.Hardsigmoid())
    model.train()
    ep = capture(model, (torch.randn(1, 4),))
    assert not model.training
    targets = _targets(ep)
    assert {"aten.hardswish.default", "aten.hardsigmoid.default"} <= targets
    assert not any("dropout" in t for t in targets)


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x


def test_export_failure_is_a_one_line_usage_error():
    with pytest.raises(UsageError) as err:
        capture(DataDependent(), (torch.randn(3),))
    message = str(err.value)
    assert message.startswith("torch.export failed: ")
    assert "\n" not in message and len(message) > len("torch.export failed: ")


def test_example_inputs_must_be_a_tuple():
    with pytest.raises(UsageError, match="tuple"):
        capture(nn.ReLU(), torch.randn(3))
