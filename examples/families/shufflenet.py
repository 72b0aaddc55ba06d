"""ShuffleNetV2 units (Ma et al. 2018): channel split (chunk), a 1x1 / 3x3 depthwise / 1x1 branch, concat and
channel shuffle (view, transpose, view); stride-2 units run both halves. 48x48x3 in, 10 classes."""

import torch
from torch import nn

from _weights import seeded, settle_batchnorm


def shuffle(x, groups: int = 2):
    n, c, h, w = x.shape
    return x.view(n, groups, c // groups, h, w).transpose(1, 2).contiguous().view(n, c, h, w)


def _conv_bn(cin, cout, kernel, stride=1, groups=1, relu=True):
    layers = [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    return nn.Sequential(*(layers + [nn.ReLU()] if relu else layers))


class ShuffleUnit(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.stride = stride
        half = cout // 2
        branch_in = cin if stride == 2 else half
        self.branch = nn.Sequential(
            _conv_bn(branch_in, half, 1),
            _conv_bn(half, half, 3, stride, groups=half, relu=False),
            _conv_bn(half, half, 1),
        )
        if stride == 2:
            self.left = nn.Sequential(_conv_bn(cin, cin, 3, 2, groups=cin, relu=False), _conv_bn(cin, half, 1))

    def forward(self, x):
        if self.stride == 1:
            a, b = x.chunk(2, dim=1)
            out = torch.cat([a, self.branch(b)], dim=1)
        else:
            out = torch.cat([self.left(x), self.branch(x)], dim=1)
        return shuffle(out)


class ShuffleNet(nn.Module):
    def __init__(self, classes: int = 10, stages=((48, 2), (96, 3)), stem: int = 24, last: int = 256):
        super().__init__()
        layers = [_conv_bn(3, stem, 3, 2), nn.MaxPool2d(3, 2, 1)]
        cin = stem
        for cout, repeats in stages:
            layers += [ShuffleUnit(cin, cout, 2)] + [ShuffleUnit(cout, cout, 1) for _ in range(repeats - 1)]
            cin = cout
        layers.append(_conv_bn(cin, last, 1))
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(last, classes)

    def forward(self, x):
        return self.fc(self.features(x).mean(dim=(2, 3)))


def factory():
    gen = seeded(17)
    x = torch.randn(1, 3, 48, 48, generator=gen)
    return settle_batchnorm(ShuffleNet(), x, gen), (x,)
