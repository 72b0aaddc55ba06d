"""Keyword spotting with temporal convolutions: TC-ResNet8 (Choi et al. 2019). The 40 MFCC coefficients are the
channels of a Conv1d over 49 frames; three residual blocks of two 9-tap convolutions, strided by 2, with 1x1
projection shortcuts; 12 classes."""

import torch
from torch import nn

from _weights import seeded, settle_batchnorm


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv1d(cin, cout, 9, stride, padding=4, bias=False)
        self.bn1 = nn.BatchNorm1d(cout)
        self.conv2 = nn.Conv1d(cout, cout, 9, 1, padding=4, bias=False)
        self.bn2 = nn.BatchNorm1d(cout)
        self.shortcut = nn.Sequential(nn.Conv1d(cin, cout, 1, stride, bias=False), nn.BatchNorm1d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.shortcut(x))


class TCResNet8(nn.Module):
    def __init__(self, mfcc: int = 40, classes: int = 12, widths=(16, 24, 32, 48)):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv1d(mfcc, widths[0], 3, padding=1, bias=False), nn.BatchNorm1d(widths[0]), nn.ReLU()
        )
        self.blocks = nn.Sequential(*[Block(a, b, 2) for a, b in zip(widths, widths[1:])])
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.fc = nn.Linear(widths[-1], classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(self.pool(x).flatten(1))


def factory():
    gen = seeded(11)
    x = torch.randn(1, 40, 49, generator=gen)
    return settle_batchnorm(TCResNet8(), x, gen), (x,)
