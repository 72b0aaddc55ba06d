"""mean and sum over any dims in int8 (no fp32 fallback), one depthwise convolution of ones (TOSA's
REDUCE_SUM + RESCALE): host C runtime == reference interpreter bit for bit, close to fp32 torch."""

import pytest
import torch
from torch import nn

from int8_export_check import check_against_fake_quant, check_int8

DW_NHWC = "cortex_m::quantized_depthwise_conv2d_nhwc.out"


class TokenMean(nn.Module):  # a transformer's pooling over tokens, and a last-dim mean with keepdim
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        y = self.lin(x)
        return y.mean(1), y.mean(-1, keepdim=True), y.mean((0, 2))


class Sums(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return y.sum(1), y.sum((1, 3), keepdim=True), y.sum(-1), y.mean(1)


@pytest.mark.slow
def test_mean_over_token_and_last_dims():
    check_int8(TokenMean(), [(2, 5, 8)], ops=[DW_NHWC])


@pytest.mark.slow
def test_sum_and_mean_over_any_dims():
    check_int8(Sums(), [(1, 3, 6, 7)], ops=[DW_NHWC])


@pytest.mark.slow
def test_reductions_track_pt2e_fake_quant():
    check_against_fake_quant(Sums(), [(1, 3, 6, 7)])
    check_against_fake_quant(TokenMean(), [(2, 5, 8)])
