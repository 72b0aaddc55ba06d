"""Recurrent cells in int8. GRU and LSTM cells written by hand (Linear layers, sigmoid, tanh, mul, add,
`1 - z`) lower to int8 kernels only, bit-exact on the host C runtime and close to fp32
torch. nn.GRU / nn.LSTM as torch.export unrolls them (slice, split_with_sizes, select between the linear
layers) are annotated so that those moves keep their input's int8 parameters: once int8 kernels for the
moves exist, the whole cell stays int8 (here: checked on the converted PT2E graph)."""

from __future__ import annotations

import operator
import shutil

import pytest
import torch
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

import int8_model_checks as M
from mcu_export.int8.lower import match
from mcu_export.int8.prepare import capture_keeping_linear
from mcu_export.int8.quantizer import CmsisNNQuantizer
from mcu_export.passes import PRE_QUANT_PASSES, run_passes

needs_c = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs cmake, ninja and a C compiler"
)
aten = torch.ops.aten


class HandGRU(nn.Module):
    """A GRU over `steps` time steps of a [N, steps * 10] input, with separate Linear layers per gate."""

    def __init__(self, inputs=10, hidden=16, steps=3):
        super().__init__()
        self.inputs, self.hidden, self.steps = inputs, hidden, steps
        self.xz, self.xr, self.xn = (nn.Linear(inputs, hidden) for _ in range(3))
        self.hz, self.hr, self.hn = (nn.Linear(hidden, hidden) for _ in range(3))
        self.fc = nn.Linear(hidden, 4)

    def forward(self, x):
        h = torch.tanh(self.hn(torch.zeros(x.shape[0], self.hidden)))
        for t in range(self.steps):
            xt = x[:, t * self.inputs : (t + 1) * self.inputs] if self.steps > 1 else x
            z = torch.sigmoid(self.xz(xt) + self.hz(h))
            r = torch.sigmoid(self.xr(xt) + self.hr(h))
            n = torch.tanh(self.xn(xt) + r * self.hn(h))
            h = (1 - z) * n + z * h
        return self.fc(h)


class HandLSTM(nn.Module):
    """One LSTM step from a state (h, c) that Linear layers make from the input, a Linear layer per gate."""

    def __init__(self, inputs=10, hidden=16):
        super().__init__()
        self.h0, self.c0 = nn.Linear(inputs, hidden), nn.Linear(inputs, hidden)
        self.gx = nn.ModuleList(nn.Linear(inputs, hidden) for _ in range(4))
        self.gh = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(4))
        self.fc = nn.Linear(hidden, 4)

    def forward(self, x):
        h, c = torch.tanh(self.h0(x)), torch.tanh(self.c0(x))
        i, f, g, o = (self.gx[k](x) + self.gh[k](h) for k in range(4))
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return self.fc(torch.sigmoid(o) * torch.tanh(c))


SHAPE = (2, 10)
# tables: GRU 2 sigmoid, tanh and `1 - z` (h0 is folded); LSTM 3 sigmoid and 4 tanh
CELLS = {"gru": (lambda: HandGRU(steps=1), 4), "lstm": (HandLSTM, 7)}


@pytest.fixture(scope="module", params=sorted(CELLS))
def lowered(request):
    make, tables = CELLS[request.param]
    torch.manual_seed(2)
    model = make().eval()
    program, quantized = M.lower(model, SHAPE)
    return model, program, quantized, tables


@pytest.mark.slow
def test_hand_cell_is_int8_throughout(lowered):
    _model, program, _q, tables = lowered
    ops = M.ops(program)
    assert ops.count("cortex_m::quantized_activation.out") == tables
    assert not any(op.startswith("aten::") for op in ops), ops


@pytest.mark.slow
def test_hand_cell_close_to_float(lowered):
    model, program, quantized, _tables = lowered
    M.check_against_torch(model, program, quantized, SHAPE)


@needs_c
@pytest.mark.slow
def test_hand_cell_host_equals_reference(lowered):
    _model, program, _q, _tables = lowered
    M.check_host_bit_exact(program, SHAPE)


class TorchRNN(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.rnn = (nn.GRU if kind == "gru" else nn.LSTM)(10, 16, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


MOVES = {aten.slice.Tensor, aten.select.int, aten.squeeze.dims, operator.getitem}


@pytest.mark.parametrize("kind", ["gru", "lstm"])
@pytest.mark.slow
def test_torch_rnn_moves_keep_their_input_quantization(kind):
    torch.manual_seed(0)
    calib = M.data((1, 3, 10), 4, 1)
    ep = run_passes(capture_keeping_linear(TorchRNN(kind).eval(), calib[0]), PRE_QUANT_PASSES)
    prepared = prepare_pt2e(ep.module(check_guards=False), CmsisNNQuantizer())
    for batch in calib:
        prepared(*batch)
    graph = convert_pt2e(prepared).graph
    moves = [n for n in graph.nodes if n.op == "call_function" and n.target in MOVES]
    checked = 0
    for node in moves:
        source = node.args[0]
        if node.target == operator.getitem:  # split_with_sizes' pieces: the split reads the dequantized value
            if source.target != aten.split_with_sizes.default:
                continue
            source = source.args[0]
        assert match.is_dq(source), (node.name, source.name)
        users = list(node.users)
        assert users and all(match.is_q(u) for u in users), (node.name, [u.name for u in users])
        assert {match.qparams(u) for u in users} == {match.qparams(source)}, node.name
        checked += 1
    assert checked >= 6
    floats = [
        n for n in graph.nodes if n.op == "call_function" and n.target in (aten.sigmoid.default, aten.tanh.default)
    ]
    for node in floats:  # every gate activation reads int8 and is quantized after: a table each
        assert match.is_dq(node.args[0]) and all(match.is_q(u) for u in node.users), node.name
