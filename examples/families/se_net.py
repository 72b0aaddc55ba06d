"""A small CNN with squeeze-and-excitation (Hu et al. 2018) after every block: global average pool, 1x1
reduce, ReLU, 1x1 expand, sigmoid, channel-wise scale. 32x32x3 in, 10 classes."""

import torch
from torch import nn

from _weights import seeded, settle_batchnorm


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, reduction: int = 4):
        super().__init__()
        self.reduce = nn.Conv2d(channels, channels // reduction, 1)
        self.expand = nn.Conv2d(channels // reduction, channels, 1)

    def forward(self, x):
        s = nn.functional.adaptive_avg_pool2d(x, 1)
        s = torch.sigmoid(self.expand(torch.relu(self.reduce(s))))
        return x * s


class SEBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.se = SqueezeExcite(cout)

    def forward(self, x):
        return self.se(torch.relu(self.bn(self.conv(x))))


class SENet(nn.Module):
    def __init__(self, classes: int = 10, widths=(16, 32, 64)):
        super().__init__()
        blocks, cin = [], 3
        for i, cout in enumerate(widths):
            blocks += [SEBlock(cin, cout, 1 if i == 0 else 2), SEBlock(cout, cout, 1)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(self.blocks(x).mean(dim=(2, 3)))


def factory():
    gen = seeded(16)
    x = torch.randn(1, 3, 32, 32, generator=gen)
    return settle_batchnorm(SENet(), x, gen), (x,)
