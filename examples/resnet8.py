"""Image classification: the ResNet-8 of MLPerf Tiny (CIFAR-10, 32x32x3 in, 10 classes out)."""

import torch
from torch import nn

from _init import randomize_batchnorm, seeded


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = (
            nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
            if stride != 1 or cin != cout
            else nn.Identity()
        )

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.shortcut(x))


class ResNet8(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.stages = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2))
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        x = self.stages(self.stem(x))
        x = nn.functional.avg_pool2d(x, 8).flatten(1)
        return self.head(x)


def factory():
    gen = seeded(1)
    model = ResNet8().eval()
    randomize_batchnorm(model, gen)
    return model, (torch.randn(1, 3, 32, 32, generator=gen),)
