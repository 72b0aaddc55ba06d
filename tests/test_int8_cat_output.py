"""cat in int8 where the model returns it (it ran in fp32: the quantizer skipped cat, whose first argument
is a list, so only a consumer's observer ever quantized it): host C runtime == reference bit for bit."""

import pytest
import torch
from torch import nn

from int8_export_check import check_int8


class Heads(nn.Module):  # two heads concatenated as the output
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(6, 4), nn.Linear(6, 3)

    def forward(self, x):
        return torch.cat([self.a(x), self.b(x)], dim=1)


class Branches(nn.Module):  # an inception-like channel cat as the output, one branch with a folded relu
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(3, 2, 1)

    def forward(self, x):
        return torch.cat([self.a(x), torch.relu(self.b(x))], dim=1)


@pytest.mark.slow
def test_cat_of_linear_heads_as_output():
    check_int8(Heads(), [(2, 6)])


@pytest.mark.slow
def test_channel_cat_as_output():
    check_int8(Branches(), [(1, 3, 6, 6)])
