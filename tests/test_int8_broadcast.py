"""Broadcasting add/sub/mul and ops with a number operand in int8 (no fp32 fallback): host C runtime ==
reference interpreter bit for bit, both close to fp32 torch; the broadcast plan of quantized_add/mul
against the numpy reference in any dim orders."""

import numpy as np
import pytest
import torch
from torch import nn

from int8_export_check import check_int8

ADD, MUL, LUT = "cortex_m::quantized_add.out", "cortex_m::quantized_mul.out", "cortex_m::quantized_activation.out"


class SqueezeExcite(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.fc1, self.fc2 = nn.Conv2d(c, 4, 1), nn.Conv2d(4, c, 1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        s = torch.sigmoid(self.fc2(torch.relu(self.fc1(y.mean((2, 3), keepdim=True)))))
        return y * s


class Broadcasts(nn.Module):
    def forward(self, a, b, c):
        return a + b, a - c, b * c, a * c


class Scalars(nn.Module):
    def forward(self, x):
        return x * 0.5, 1 - x, x + 2.0, x / 4.0, x - 0.25


class GateProducts(nn.Module):  # a GRU cell's tail: (1 - z) * n + z * h
    def __init__(self):
        super().__init__()
        self.gate, self.cand = nn.Linear(6, 6), nn.Linear(6, 6)

    def forward(self, x, h):
        z, n = torch.sigmoid(self.gate(x)), torch.tanh(self.cand(x))
        return (1 - z) * n + z * h


def test_squeeze_excite_multiplies_by_a_channel_row():
    check_int8(SqueezeExcite(), [(1, 3, 8, 8)], ops=[MUL])


def test_broadcasting_add_sub_mul():
    check_int8(Broadcasts(), [(2, 4, 5), (4, 1), (1, 5)], ops=[ADD, MUL])


def test_number_operands_are_table_lookups():
    check_int8(Scalars(), [(2, 16)], ops=[LUT])


def test_gate_products():
    check_int8(GateProducts(), [(3, 6), (3, 6)], floor=0.98, ops=[ADD, MUL])
