"""Table-lookup activations beyond sigmoid/tanh/hardswish (gelu erf and tanh, silu as torch.export writes it,
leaky_relu, elu, selu, celu, softplus, mish, exp, abs, neg; add, sub, mul with a one-value constant): each becomes one cortex_m::quantized_activation with no fp32
fallback, equal to the fake-quantized graph within one output step, close to fp32 torch, and the host C
runtime equals the reference interpreter bit for bit."""

from __future__ import annotations

import shutil

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import int8_model_checks as M
from tiers import fast_first

needs_c = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs cmake, ninja and a C compiler"
)

ACTIVATIONS = {
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "silu_by_hand": lambda x: x * torch.sigmoid(x),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
    "elu": F.elu,
    "selu": F.selu,
    "exp": torch.exp,
    "celu": lambda x: F.celu(x, 0.5),
    "softplus": F.softplus,
    "mish": F.mish,
    "abs": torch.abs,
    "neg": torch.neg,
    # one operand a constant of one value: a table too
    "one_minus": lambda x: 1 - x,
    "times_scale": lambda x: x * 0.25,
    "plus_then_relu": lambda x: F.relu(x + 0.5),
}


class Act(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn, self.a, self.b = fn, nn.Linear(16, 16), nn.Linear(16, 6)

    def forward(self, x):
        return self.b(self.fn(self.a(x)))


SHAPE = (4, 16)


@pytest.fixture(scope="module", params=fast_first(sorted(ACTIVATIONS), keep=2))
def lowered(request):
    torch.manual_seed(11)
    model = Act(ACTIVATIONS[request.param]).eval()
    program, quantized = M.lower(model, SHAPE)
    return request.param, model, program, quantized


def test_one_table_and_no_fallback(lowered):
    name, _model, program, _q = lowered
    ops = M.ops(program)
    tables = ops.count("cortex_m::quantized_activation.out")
    assert tables == 1, ops  # silu's x * sigmoid(x) included: one table, no mul
    assert "cortex_m::quantized_mul.out" not in ops and "cortex_m::quantized_add.out" not in ops, ops
    assert not any(op.startswith("aten::") for op in ops), ops


def test_close_to_float_and_fake_quant(lowered):
    _name, model, program, quantized = lowered
    M.check_against_torch(model, program, quantized, SHAPE)


@needs_c
def test_host_runtime_equals_reference(lowered):
    _name, _model, program, _q = lowered
    M.check_host_bit_exact(program, SHAPE)


@pytest.mark.slow
def test_sigmoid_with_other_users_stays_a_sigmoid_table():
    """sigmoid(x) used beyond `x * sigmoid(x)` is not silu: a sigmoid table and an int8 mul."""

    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(16, 16)

        def forward(self, x):
            h = self.a(x)
            s = torch.sigmoid(h)
            return h * s + s

    program, _q = M.lower(Gate().eval(), SHAPE)
    ops = M.ops(program)
    assert ops.count("cortex_m::quantized_activation.out") == 1 and "cortex_m::quantized_mul.out" in ops
