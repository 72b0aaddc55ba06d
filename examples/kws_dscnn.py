"""Keyword spotting: the DS-CNN of "Hello Edge" (Arm ML-Zoo's small variant), 49x10 MFCC in, 12 classes out."""

import torch
from torch import nn

from _init import seeded, settle_batchnorm


def _conv_bn_relu(cin, cout, kernel, stride=1, padding=0, groups=1):
    return [nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


class DSCNN(nn.Module):
    def __init__(self, channels: int = 64, blocks: int = 4, classes: int = 12):
        super().__init__()
        layers = _conv_bn_relu(1, channels, (10, 4), stride=(2, 2), padding=(5, 1))
        for _ in range(blocks):
            layers += _conv_bn_relu(channels, channels, 3, padding=1, groups=channels)  # depthwise
            layers += _conv_bn_relu(channels, channels, 1)  # pointwise
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(channels, classes)

    def forward(self, x):
        x = self.pool(self.features(x)).flatten(1)
        return torch.softmax(self.classifier(x), dim=-1)


def factory():
    gen = seeded(0)
    model = DSCNN().eval()
    x = torch.randn(1, 1, 49, 10, generator=gen)
    settle_batchnorm(model, x, gen)
    return model, (x,)
