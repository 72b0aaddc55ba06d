"""A tiny pre-norm transformer encoder: 16 tokens of 32 features, a learned position embedding, one block of
4-head self-attention and a GELU MLP (both residual), a final LayerNorm, mean over tokens, 10 classes."""

import torch
from torch import nn

from _weights import seeded


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, hidden: int):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class TinyTransformer(nn.Module):
    def __init__(self, tokens: int = 16, dim: int = 32, heads: int = 4, classes: int = 10):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, tokens, dim) * 0.1)
        self.block = Block(dim, heads, 2 * dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.norm(self.block(x + self.pos))
        return self.head(x.mean(dim=1))


def factory():
    gen = seeded(14)
    return TinyTransformer().eval(), (torch.randn(1, 16, 32, generator=gen),)
