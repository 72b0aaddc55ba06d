"""int8 PReLU, as torch.export writes it (`where(x > 0, x, weight * x)`): one weight becomes one
cortex_m::quantized_activation table, one weight per channel cortex_m::quantized_prelu (ours:
mcu_export/int8/reference/prelu.py). The host C kernel equals the reference bit for bit in any layout, the
reference is within an output step of the fake-quantized PReLU, and models lower with no fp32 fallback."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

import int8_model_checks as M
from cortex_m_programs import NCHW_CHANNELS_LAST, OpProgram, pte_runner
from mcu_export.api import export
from mcu_export.errors import RuntimeFailure
from mcu_export.int8.reference.prelu import prelu_multiplier, quantized_prelu
from tiers import fast_first

needs_c = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs cmake, ninja and a C compiler"
)
I8 = np.int8


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return pte_runner(tmp_path_factory.mktemp("prelu"))


def _params(slopes, in_scale, out_scale):
    positive = prelu_multiplier(in_scale / out_scale)
    negative = [prelu_multiplier(in_scale * float(s) / out_scale) for s in slopes]
    return positive, np.array([m for m, _ in negative], np.int32), np.array([s for _, s in negative], np.int32)


def _program(x, channel_dim, zps, params, dim_order=None):
    (pos_m, pos_s), neg_m, neg_s = params
    prog = OpProgram("cortex_m::quantized_prelu.out")
    xi, out = prog.input(x, dim_order), prog.planned(x.shape, I8, dim_order)
    args = [xi, prog.int_(channel_dim), prog.int_(zps[0]), prog.int_(zps[1]), prog.int_(pos_m), prog.int_(pos_s)]
    return prog.build(args + [prog.const(neg_m), prog.const(neg_s)], out)


def _reference(x, channel_dim, zps, params):
    positive, neg_m, neg_s = params
    return quantized_prelu(x, channel_dim, zps[0], zps[1], positive, neg_m, neg_s)


@needs_c
@settings(max_examples=20, deadline=None)
@given(
    shape=st.sampled_from([(3, 7), (2, 5, 3, 4), (1, 8, 1, 1), (2, 3, 6)]),
    channels_last=st.booleans(),
    in_scale=st.floats(1e-3, 0.2),
    out_scale=st.floats(1e-3, 0.2),
    in_zp=st.integers(-128, 127),
    out_zp=st.integers(-128, 127),
    seed=st.integers(0, 2**31),
)
def test_kernel_matches_reference(run, shape, channels_last, in_scale, out_scale, in_zp, out_zp, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, shape, dtype=I8)
    slopes = rng.normal(0.0, 0.8, shape[1])
    slopes[0] = 0.0  # a zero slope: multiplier 0
    order = NCHW_CHANNELS_LAST if channels_last and len(shape) == 4 else None
    params = _params(slopes, in_scale, out_scale)
    got = run(_program(x, 1, (in_zp, out_zp), params, order), [x])
    np.testing.assert_array_equal(got, _reference(x, 1, (in_zp, out_zp), params))


@needs_c
def test_kernel_refuses_a_multiplier_per_channel_count_that_differs(run):
    x = np.zeros((2, 4), I8)
    params = _params([0.1, 0.2, 0.3], 0.05, 0.05)  # 3 slopes for 4 channels
    with pytest.raises(RuntimeFailure):
        run(_program(x, 1, (0, 0), params), [x])
    with pytest.raises(RuntimeFailure):  # channel_dim past the rank
        run(_program(x, 2, (0, 0), _params([0.1] * 4, 0.05, 0.05)), [x])


@pytest.mark.parametrize("in_scale,out_scale", [(0.021, 0.02), (0.05, 0.011), (0.01, 0.037)])
def test_reference_within_a_step_of_fake_quant_prelu(in_scale, out_scale):
    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, (4, 6, 5, 5), dtype=I8)
    slopes = np.array([0.25, -0.5, 0.0, 1.5, 0.01, -2.0], np.float32)
    in_zp, out_zp = 7, -20
    ours = _reference(x, 1, (in_zp, out_zp), _params(slopes, in_scale, out_scale)).astype(np.int64)
    xf = torch.from_numpy((x.astype(np.float32) - in_zp) * np.float32(in_scale))
    fp = torch.nn.functional.prelu(xf, torch.from_numpy(slopes))
    fake = torch.clamp(torch.round(fp / out_scale) + out_zp, -128, 127).numpy().astype(np.int64)
    diff = np.abs(ours - fake)
    # ratios with no exact ties (arm_nn_requantize rounds ties away from zero, torch to even)
    assert diff.max() <= 1 and np.mean(diff == 0) > 0.95


class ConvPReLU(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.act, self.c2 = nn.Conv2d(3, 6, 3, padding=1), nn.PReLU(6), nn.Conv2d(6, 4, 3)
        with torch.no_grad():
            self.act.weight.copy_(torch.tensor([0.25, -0.5, 0.0, 1.5, 0.1, 0.6]))

    def forward(self, x):
        return self.c2(self.act(self.c1(x)))


class LinearPReLU(nn.Module):
    def __init__(self, per_feature: bool):
        super().__init__()
        self.a, self.act, self.b = nn.Linear(16, 24), nn.PReLU(24 if per_feature else 1, init=0.2), nn.Linear(24, 6)
        if per_feature:
            with torch.no_grad():
                self.act.weight.copy_(torch.linspace(-0.5, 1.0, 24))

    def forward(self, x):
        return self.b(self.act(self.a(x)))


class InputPReLU(nn.Module):
    """PReLU on the model input: gt, mul and where read x through one observer."""

    def __init__(self):
        super().__init__()
        self.act, self.fc = nn.PReLU(init=0.3), nn.Linear(16, 6)

    def forward(self, x):
        return self.fc(self.act(x))


class Conv1dPReLU(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.act, self.c2 = nn.Conv1d(3, 5, 3), nn.PReLU(5, init=-0.2), nn.Conv1d(5, 2, 1)

    def forward(self, x):
        return self.c2(self.act(self.c1(x)))


CASES = {
    "input_prelu_one": (InputPReLU, (4, 16), "cortex_m::quantized_activation.out"),
    "conv1d_prelu_channels": (Conv1dPReLU, (2, 3, 10), "cortex_m::quantized_prelu.out"),
    "conv_prelu_channels": (ConvPReLU, (2, 3, 8, 8), "cortex_m::quantized_prelu.out"),
    "linear_prelu_one": (lambda: LinearPReLU(False), (4, 16), "cortex_m::quantized_activation.out"),
    "linear_prelu_features": (lambda: LinearPReLU(True), (4, 16), "cortex_m::quantized_prelu.out"),
}


@pytest.fixture(scope="module", params=fast_first(sorted(CASES), keep=2))
def lowered(request):
    torch.manual_seed(5)
    make, shape, kernel = CASES[request.param]
    model = make().eval()
    program, quantized = M.lower(model, shape)
    return model, shape, kernel, program, quantized


def test_one_kernel_and_no_fallback(lowered):
    _model, _shape, kernel, program, _q = lowered
    ops = M.ops(program)
    assert ops.count(kernel) == 1, ops
    assert "cortex_m::quantized_mul.out" not in ops, ops
    assert not any(op.startswith("aten::") and "view_copy" not in op for op in ops), ops


def test_close_to_float_and_fake_quant(lowered):
    model, shape, _kernel, program, quantized = lowered
    M.check_against_torch(model, program, quantized, shape)


@needs_c
def test_host_runtime_equals_reference(lowered):
    _model, shape, _kernel, program, _q = lowered
    M.check_host_bit_exact(program, shape)


@pytest.mark.slow
def test_export_without_fallback():
    torch.manual_seed(6)
    model = ConvPReLU().eval()
    calib = M.data((1, 3, 8, 8), 8, 1)
    artifact = export(model, calib[0], quantize="int8", calibrate=calib, fallback=False)
    assert "cortex_m::quantized_prelu.out" in M.ops(artifact.program)


@pytest.mark.slow
def test_where_that_is_not_a_prelu_is_left_alone():
    """where(x > 0, x, y * x) with y another activation or a model input is no PReLU: the pattern does not
    claim it."""

    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 8)

        def forward(self, x):
            h, y = self.a(x), self.b(x)
            return torch.where(h > 0, h, y * h)

    class InputSlope(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(8, 8)

        def forward(self, x, y):
            h = self.a(x)
            return torch.where(h > 0, h, y * h)

    from mcu_export.int8.pipeline import to_int8_program

    calib = M.data((2, 8), 4, 1)
    program, _info, _plan, _q = to_int8_program(Gate().eval(), calib[0], calibrate=calib)
    ops = M.ops(program)
    assert "cortex_m::quantized_prelu.out" not in ops and "cortex_m::quantized_mul.out" in ops, ops
    pairs = [(x, torch.full((2, 8), 0.1)) for (x,) in calib]
    program, info, _plan, _q = to_int8_program(InputSlope().eval(), pairs[0], calibrate=pairs)
    ops = M.ops(program)
    assert "cortex_m::quantized_prelu.out" not in ops and "cortex_m::quantized_activation.out" not in ops, ops
    assert any(f["op"] == "aten.where.self" for f in info.fallbacks), info.fallbacks


class QatNet(nn.Module):
    def __init__(self, head):
        super().__init__()
        self.a, self.act, self.b, self.act1 = nn.Linear(8, 12), nn.PReLU(12), nn.Linear(12, 5), nn.PReLU()
        self.head = head

    def forward(self, x):
        return self.head(self.b(self.act1(self.act(self.a(x)))), -1)


@pytest.mark.slow
@pytest.mark.parametrize("head", ["log_softmax", "softmax"])
def test_qat_prelu_and_fixed_output_heads(head):
    """QAT's training IR keeps prelu whole (annotated as one op); log_softmax and softmax get their fixed
    output specs as fake quants: after convert all lower with no fallback, host equal to the reference."""
    from mcu_export.api import export_qat, prepare_qat
    from mcu_export.int8.interpreter import run_reference

    torch.manual_seed(0)
    data = [(torch.randn(4, 8),) for _ in range(6)]
    prepared = prepare_qat(QatNet(getattr(torch, head)).train(), data[0])
    opt = torch.optim.SGD(prepared.parameters(), lr=0.01)
    for (x,) in data:
        loss = -prepared(x)[:, 0].mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    artifact = export_qat(prepared, data[0])
    assert artifact.report["int8"]["fallbacks"] == []
    ops = set(artifact.report["ops"])
    assert {"cortex_m::quantized_prelu.out", "cortex_m::quantized_activation.out", f"cortex_m::{head}.out"} <= ops
    x = data[1][0]
    ours = run_reference(artifact.program, [x])[0]
    assert np.array_equal(artifact.run(x)[0], ours)
    fake = prepared(x).detach().numpy()  # converted in place: the fake-quantized model
    step = 1 / 16 if head == "log_softmax" else 1 / 256
    assert np.mean(np.abs(ours - fake) <= step + 1e-6) > 0.99
