"""MobileNetV2 (Sandler et al. 2018) with width multiplier 0.35 at 48x48x3: inverted residual blocks
(1x1 expand, 3x3 depthwise, 1x1 linear projection, ReLU6), the standard 17-block layout, 10 classes."""

import torch
from torch import nn

from _weights import seeded, settle_batchnorm


def _divisible(v: float, divisor: int = 8) -> int:
    rounded = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded


def _conv_bn(cin, cout, kernel, stride=1, groups=1, relu=True):
    layers = [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    return layers + [nn.ReLU6()] if relu else layers


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int):
        super().__init__()
        hidden = cin * expand
        layers = _conv_bn(cin, hidden, 1) if expand != 1 else []
        layers += _conv_bn(hidden, hidden, 3, stride, groups=hidden)
        layers += _conv_bn(hidden, cout, 1, relu=False)
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)


# (expansion, channels, repeats, first stride)
LAYOUT = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


class MobileNetV2(nn.Module):
    def __init__(self, width: float = 0.35, classes: int = 10, last: int = 1280):
        super().__init__()
        cin = _divisible(32 * width)
        layers = _conv_bn(3, cin, 3, 2)
        for expand, channels, repeats, stride in LAYOUT:
            cout = _divisible(channels * width)
            for i in range(repeats):
                layers.append(InvertedResidual(cin, cout, stride if i == 0 else 1, expand))
                cin = cout
        layers += _conv_bn(cin, last, 1)
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(last, classes)

    def forward(self, x):
        x = self.features(x)
        return self.classifier(nn.functional.adaptive_avg_pool2d(x, 1).flatten(1))


def factory():
    gen = seeded(15)
    x = torch.randn(1, 3, 48, 48, generator=gen)
    return settle_batchnorm(MobileNetV2(), x, gen), (x,)
