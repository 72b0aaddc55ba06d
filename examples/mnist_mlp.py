"""The ExecuTorch paper's Pico 2 demo model: an MNIST MLP, 784 -> 32 -> 16 -> 10."""

import torch
from torch import nn

from _init import seeded


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(), nn.Linear(784, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 10)
        )

    def forward(self, x):
        return self.net(x)


def factory():
    gen = seeded(2)
    return MLP().eval(), (torch.rand(1, 1, 28, 28, generator=gen),)
