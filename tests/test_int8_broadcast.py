"""Broadcasting add/sub/mul and ops with a number operand in int8 (no fp32 fallback): host C runtime ==
reference interpreter bit for bit, both close to fp32 torch; the broadcast plan of quantized_add/mul
against the numpy reference in any dim orders."""

import numpy as np
import pytest
import torch
from torch import nn

from int8_export_check import check_against_fake_quant, check_int8

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


class MinMax(nn.Module):
    def forward(self, x, row):
        return torch.minimum(x, x * 2), torch.maximum(x, row), torch.minimum(row, x)


class Divide(nn.Module):  # a normalisation by a (positive) tensor, broadcast over the last dim
    def forward(self, x, d, row):
        return x / (torch.sigmoid(d) + 0.5), x / (torch.sigmoid(row) + 0.5)


@pytest.mark.slow
def test_division_by_a_tensor():
    check_int8(Divide(), [(3, 6), (3, 6), (3, 1)], ops=["cortex_m::quantized_div.out"])


@pytest.mark.slow
def test_minimum_maximum_broadcast():
    check_int8(MinMax(), [(2, 3, 5), (3, 1)], ops=["cortex_m::minimum.out", "cortex_m::maximum.out"])


@pytest.mark.slow
def test_squeeze_excite_multiplies_by_a_channel_row():
    check_int8(SqueezeExcite(), [(1, 3, 8, 8)], ops=[MUL])


@pytest.mark.slow
def test_broadcasting_add_sub_mul():
    check_int8(Broadcasts(), [(2, 4, 5), (4, 1), (1, 5)], ops=[ADD, MUL])


@pytest.mark.slow
def test_number_operands_are_table_lookups():
    check_int8(Scalars(), [(2, 16)], ops=[LUT])


@pytest.mark.slow
def test_gate_products():
    check_int8(GateProducts(), [(3, 6), (3, 6)], ops=[ADD, MUL])


# ---- the kernels' broadcast plan: one-op programs on the host C runtime against the numpy reference ----


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from cortex_m_programs import pte_runner

    return pte_runner(tmp_path_factory.mktemp("broadcast"))


def _binary_program(op, a, b, orders, out_shape, params):
    from cortex_m_programs import OpProgram

    p = OpProgram(f"cortex_m::{op}.out")
    ai, bi = p.input(a, orders[0]), p.input(b, orders[1])
    out = p.planned(out_shape, np.int8, orders[2])
    if op in ("minimum", "maximum"):
        args = [ai, bi]
    elif op == "quantized_div":
        args = [ai, p.int_(params[0]), bi, p.int_(params[1]), p.int_(params[2]), p.double(params[3])]
    elif op == "quantized_add":
        args = [ai, *map(p.int_, params[0:3]), bi, *map(p.int_, params[3:6]), *map(p.int_, params[6:11])]
    else:
        args = [ai, p.int_(params[0]), bi, p.int_(params[1]), *map(p.int_, params[2:5])]
    return p.build(args, out)


def _random_case(rng):
    rank = int(rng.integers(1, 5))
    out_shape = [int(s) for s in rng.integers(1, 6, rank)]
    operands = []
    for _ in range(2):
        own = out_shape[int(rng.integers(0, rank)) :] if rng.random() < 0.3 else list(out_shape)
        own = [1 if rng.random() < 0.4 else s for s in own]
        operands.append(rng.integers(-128, 128, own).astype(np.int8))
    out_shape = list(np.broadcast_shapes(*(o.shape for o in operands)))
    orders = [tuple(int(d) for d in rng.permutation(len(s))) for s in (operands[0].shape, operands[1].shape, out_shape)]
    return operands, orders, out_shape


@pytest.mark.parametrize("op", ["quantized_add", "quantized_mul", "quantized_div", "minimum", "maximum"])
@pytest.mark.parametrize("seed", range(12))
def test_kernel_broadcasts_in_any_dim_orders(run, op, seed):
    from mcu_export.int8.reference.elementwise import (
        add_params,
        arm_elementwise_add_s8,
        arm_elementwise_mul_s8,
        mul_params,
    )

    rng = np.random.default_rng(seed)
    (a, b), orders, out_shape = _random_case(rng)
    zps = [int(z) for z in rng.integers(-100, 100, 3)]
    if op == "quantized_add":
        p = add_params(0.05, zps[0], 0.08, zps[1], 0.1, zps[2])
        if seed % 2:
            p["input_2_mult"] = -p["input_2_mult"]  # sub
        params = [zps[0], p["input_1_mult"], p["input_1_shift"], zps[1], p["input_2_mult"], p["input_2_shift"]]
        params += [zps[2], p["out_mult"], p["out_shift"], -128, 127]
        want = arm_elementwise_add_s8(a, b, **p, out_activation_min=-128, out_activation_max=127)
    elif op in ("minimum", "maximum"):
        params, want = [], (np.minimum if op == "minimum" else np.maximum)(a, b)
    elif op == "quantized_div":
        from mcu_export.int8.reference.division import quantized_div_s8

        params = [zps[0], zps[1], zps[2], 0.05 / (0.08 * 0.1)]
        want = quantized_div_s8(a, zps[0], b, zps[1], zps[2], params[3])
    else:
        p = mul_params(0.05, zps[0], 0.08, zps[1], 0.1, zps[2])
        params = [zps[0], zps[1], zps[2], p["out_mult"], p["out_shift"]]
        want = arm_elementwise_mul_s8(a, b, -zps[0], -zps[1], zps[2], p["out_mult"], p["out_shift"], -128, 127)
    assert want.shape == tuple(out_shape)
    got = run(_binary_program(op, a, b, orders, out_shape, params), [a, b])
    np.testing.assert_array_equal(got, want)


@pytest.mark.slow
def test_division_min_max_and_numbers_track_pt2e_fake_quant():
    check_against_fake_quant(Divide(), [(3, 6), (3, 6), (3, 1)])
    check_against_fake_quant(MinMax(), [(2, 3, 5), (3, 1)])
    check_against_fake_quant(Scalars(), [(2, 16)])
