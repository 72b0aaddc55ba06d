"""Visual wake words, MLPerf Tiny's model: MobileNetV1 (Howard et al. 2017) with width multiplier 0.25 at
96x96x3, 13 depthwise-separable blocks, 2 classes (person / no person)."""

import torch
from torch import nn

from _weights import seeded, settle_batchnorm


def _conv_bn_relu(cin, cout, kernel, stride=1, groups=1):
    return [
        nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(),
    ]


# (output channels at width 1.0, stride of the depthwise convolution)
LAYOUT = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]


class MobileNetV1(nn.Module):
    def __init__(self, width: float = 0.25, classes: int = 2):
        super().__init__()
        cin = int(32 * width)
        layers = _conv_bn_relu(3, cin, 3, 2)
        for channels, stride in LAYOUT:
            cout = int(channels * width)
            layers += _conv_bn_relu(cin, cin, 3, stride, groups=cin)  # depthwise
            layers += _conv_bn_relu(cin, cout, 1)  # pointwise
            cin = cout
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(cin, classes)

    def forward(self, x):
        return self.classifier(self.pool(self.features(x)).flatten(1))


def factory():
    gen = seeded(19)
    x = torch.randn(1, 3, 96, 96, generator=gen)
    return settle_batchnorm(MobileNetV1(), x, gen), (x,)
