"""Keyword spotting with a GRU: 49 frames of 10 MFCC features, one batch_first GRU layer of 48 units, the last
step's hidden state to 12 classes."""

import torch
from torch import nn

from _weights import seeded


class GRUKWS(nn.Module):
    def __init__(self, features: int = 10, hidden: int = 48, classes: int = 12):
        super().__init__()
        self.gru = nn.GRU(features, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.gru(x)
        return self.fc(y[:, -1])


def factory():
    gen = seeded(12)
    return GRUKWS().eval(), (torch.randn(1, 49, 10, generator=gen),)
