"""Anomaly detection: the dense autoencoder of MLPerf Tiny (640 log-mel features in and out, 8-wide bottleneck)."""

import torch
from torch import nn

from _init import seeded, settle_batchnorm


def _dense(cin, cout):
    return [nn.Linear(cin, cout), nn.BatchNorm1d(cout), nn.ReLU()]


class AutoEncoder(nn.Module):
    def __init__(self, features: int = 640, hidden: int = 128, bottleneck: int = 8):
        super().__init__()
        widths = [features, hidden, hidden, hidden, hidden, bottleneck, hidden, hidden, hidden, hidden]
        layers = []
        for cin, cout in zip(widths, widths[1:]):
            layers += _dense(cin, cout)
        layers.append(nn.Linear(hidden, features))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def factory():
    gen = seeded(3)
    model = AutoEncoder().eval()
    x = torch.randn(1, 640, generator=gen)
    settle_batchnorm(model, x, gen)
    return model, (x,)
