"""int8 batch matmul of two activations (attention's q·kᵀ and weights·v): cortex_m::quantized_batch_matmul on
the host C runtime equals the arm_batch_matmul_s8 reference bit for bit over drawn shapes and parameters,
the reference tracks the float product, and attention-shaped models lower to it with no fp32 fallback."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

import int8_model_checks as M
from cortex_m_programs import OpProgram, pte_runner
from mcu_export.errors import RuntimeFailure
from mcu_export.int8.lower.scratch import ISAS, fc_scratch
from mcu_export.int8.reference.batch_matmul import arm_batch_matmul_s8, batch_matmul_params
from tiers import fast_first

needs_c = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs cmake, ninja and a C compiler"
)
I8 = np.int8


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return pte_runner(tmp_path_factory.mktemp("bmm"))


def _program(lhs, rhs_t, lhs_off, rhs_off, out_off, mult, shift, scratch_bytes=None):
    p = OpProgram("cortex_m::quantized_batch_matmul.out")
    a, b = p.input(lhs), p.input(rhs_t)
    out = p.planned(lhs.shape[:-1] + (rhs_t.shape[-2],), I8)
    n = rhs_t.shape[-2]
    size = max(fc_scratch(isa, n) for isa in ISAS) if scratch_bytes is None else scratch_bytes
    scratch = p.planned((size,), np.uint8)
    args = [a, p.int_(lhs_off), b, p.int_(rhs_off), p.int_(out_off), p.int_(mult), p.int_(shift), scratch]
    return p.build(args, out)


@needs_c
@settings(max_examples=20, deadline=None)
@given(
    batch=st.integers(1, 3),
    m=st.integers(1, 9),
    n=st.integers(1, 9),
    k=st.integers(1, 40),
    flat=st.booleans(),
    zps=st.tuples(st.integers(-128, 127), st.integers(-128, 127), st.integers(-128, 127)),
    scale=st.floats(1e-4, 0.5),
    seed=st.integers(0, 2**31),
)
def test_kernel_matches_reference(run, batch, m, n, k, flat, zps, scale, seed):
    rng = np.random.default_rng(seed)
    lead = () if flat else (batch,)
    lhs = rng.integers(-128, 128, lead + (m, k), dtype=I8)
    rhs_t = rng.integers(-128, 128, lead + (n, k), dtype=I8)
    mult, shift = batch_matmul_params(1.0, 1.0, 1.0 / scale)
    offsets = dict(lhs_offset=-zps[0], rhs_offset=-zps[1], output_offset=zps[2])
    want = arm_batch_matmul_s8(lhs, rhs_t, multiplier=mult, shift=shift, **offsets)
    got = run(_program(lhs, rhs_t, -zps[0], -zps[1], zps[2], mult, shift), [lhs, rhs_t])
    np.testing.assert_array_equal(got, want)


@needs_c
def test_kernel_refuses_mismatched_inner_dims(run):
    lhs, rhs_t = np.zeros((2, 3, 4), I8), np.zeros((2, 5, 6), I8)
    with pytest.raises(RuntimeFailure, match="inconsistent shapes.*argument 2"):
        run(_program(lhs, rhs_t, 0, 0, 0, 1 << 30, 0), [lhs, rhs_t])


def test_reference_tracks_float_product():
    rng = np.random.default_rng(0)
    s_a, s_b, s_o, zp_a, zp_b, zp_o = 0.05, 0.03, 0.2, 7, -11, 3
    lhs = rng.integers(-128, 128, (2, 5, 16), dtype=I8)
    rhs_t = rng.integers(-128, 128, (2, 6, 16), dtype=I8)
    mult, shift = batch_matmul_params(s_a, s_b, s_o)
    got = arm_batch_matmul_s8(
        lhs, rhs_t, lhs_offset=-zp_a, rhs_offset=-zp_b, output_offset=zp_o, multiplier=mult, shift=shift
    )
    exact = np.einsum("bmk,bnk->bmn", (lhs.astype(np.float64) - zp_a) * s_a, (rhs_t.astype(np.float64) - zp_b) * s_b)
    want = np.clip(np.round(exact / s_o) + zp_o, -128, 127)
    assert np.abs(got.astype(np.int64) - want).max() <= 1


class Attention(nn.Module):
    """One head: q·kᵀ (the transpose folded into the kernel's transposed operand), softmax, weights·v."""

    def __init__(self, d=16):
        super().__init__()
        self.q, self.k, self.v, self.o = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, 8)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        weights = torch.softmax(torch.bmm(q, k.transpose(1, 2)), dim=-1)
        return self.o(torch.bmm(weights, v))


class Matmul2d(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(12, 12), nn.Linear(12, 10)

    def forward(self, x):
        return torch.mm(self.a(x).t(), self.b(x))


CASES = {"attention": (Attention, (2, 6, 16)), "mm": (Matmul2d, (5, 12))}


@pytest.fixture(scope="module", params=fast_first(sorted(CASES), keep=2))
def lowered(request):
    cls, shape = CASES[request.param]
    torch.manual_seed(3)
    model = cls().eval()
    program, quantized = M.lower(model, shape)
    return request.param, model, program, quantized, shape


def test_lowers_to_batch_matmul_without_fallback(lowered):
    name, _model, program, _q, _shape = lowered
    ops = M.ops(program)
    assert "cortex_m::quantized_batch_matmul.out" in ops
    assert not any(op.startswith("aten::") and op != "aten::view_copy.out" for op in ops), ops
    if name == "attention":  # kᵀ is read as it is: only v is transposed
        assert ops.count("cortex_m::transpose.out") == 1 and ops.count("cortex_m::quantized_batch_matmul.out") == 2


def test_close_to_float_and_fake_quant(lowered):
    _name, model, program, quantized, shape = lowered
    M.check_against_torch(model, program, quantized, shape)


@needs_c
def test_host_runtime_equals_reference(lowered):
    _name, _model, program, _q, shape = lowered
    M.check_host_bit_exact(program, shape)


@pytest.mark.slow
def test_export_with_fallback_false():
    from mcu_export.api import export

    torch.manual_seed(3)
    calib = M.data((2, 6, 16), 4, 1)
    art = export(Attention().eval(), calib[0], quantize="int8", calibrate=lambda: iter(calib), fallback=False)
    assert art.report["int8"]["fallbacks"] == []


@pytest.mark.slow
def test_qat_attention_scores_are_int8_throughout():
    """QAT's training IR writes kᵀ as aten.transpose.int and keeps layer_norm whole: all annotated. (torch.matmul
    stays whole there too, and its core-ATen views around bmm are not int8 yet: a fallback.)"""
    from mcu_export.api import export_qat
    from mcu_export.int8.prepare import prepare_qat

    class Scores(nn.Module):
        def __init__(self, d=16):
            super().__init__()
            self.ln, self.q, self.k, self.o = nn.LayerNorm(d), nn.Linear(d, d), nn.Linear(d, d), nn.Linear(6, 4)

        def forward(self, x):
            h = self.ln(x)
            return self.o(torch.nn.functional.gelu(torch.bmm(self.q(h), self.k(h).transpose(1, 2))))

    torch.manual_seed(4)
    model = Scores().eval()
    calib = M.data((2, 6, 16), 8, 1)
    prepared = prepare_qat(model, calib[0])
    for (x,) in calib:
        prepared(x)
    art = export_qat(prepared, calib[0])
    assert art.report["int8"]["fallbacks"] == []
    ops = M.ops(art.program)
    assert {"cortex_m::quantized_batch_matmul.out", "cortex_m::quantized_layer_norm.out"} <= set(ops)
    assert M.cosine(art.run(calib[1][0])[0], model(calib[1][0]).detach().numpy()) >= 0.95
