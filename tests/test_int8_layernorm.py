"""int8 LayerNorm (cortex_m::quantized_layer_norm, our integer arithmetic: mcu_export/int8/reference/layer_norm.py):
the host C kernel equals the reference bit for bit over drawn shapes, weights and epsilons, the reference
tracks float LayerNorm of the dequantized input, and LayerNorm models lower to it with no fp32 fallback."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch import nn

import int8_model_checks as M
from cortex_m_programs import OpProgram, pte_runner
from mcu_export.errors import RuntimeFailure
from mcu_export.int8.reference.layer_norm import MAX_EPSILON, layer_norm_params, quantized_layer_norm

needs_c = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs cmake, ninja and a C compiler"
)
I8 = np.int8


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return pte_runner(tmp_path_factory.mktemp("layer_norm"))


def _program(x, p, out_zp):
    prog = OpProgram("cortex_m::quantized_layer_norm.out")
    xi, out = prog.input(x), prog.planned(x.shape, I8)
    args = [
        xi,
        prog.const(p["weight"]),
        prog.const(p["bias"]),
        prog.int_(p["epsilon"]),
        prog.int_(out_zp),
        prog.int_(p["multiplier"]),
        prog.int_(p["shift"]),
    ]
    return prog.build(args, out)


def _params(rng, n, in_scale, out_scale, eps):
    gamma = rng.normal(1.0, 0.5, n)
    beta = rng.normal(0.0, 0.5, n)
    return layer_norm_params(gamma, beta, n, eps, in_scale, out_scale)


@needs_c
@settings(max_examples=20, deadline=None)
@given(
    lead=st.lists(st.integers(1, 4), min_size=0, max_size=2),
    tail=st.lists(st.integers(1, 24), min_size=1, max_size=2),
    in_scale=st.floats(1e-3, 0.5),
    out_scale=st.floats(1e-3, 0.5),
    eps=st.sampled_from([0.0, 1e-5, 1e-3, 0.1]),
    out_zp=st.integers(-128, 127),
    seed=st.integers(0, 2**31),
)
def test_kernel_matches_reference(run, lead, tail, in_scale, out_scale, eps, out_zp, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, tuple(lead) + tuple(tail), dtype=I8)
    if rng.random() < 0.2:  # constant rows: variance 0, only epsilon under the root
        x[...] = x.reshape(-1)[0]
    p = _params(rng, int(np.prod(tail)), in_scale, out_scale, eps)
    # what the lowering would refuse (rules_norm.py: epsilon in squared input steps times N^2) never reaches a kernel
    assume(p["epsilon"] <= MAX_EPSILON)
    want = quantized_layer_norm(
        x,
        p["weight"],
        p["bias"],
        epsilon=p["epsilon"],
        output_zero_point=out_zp,
        multiplier=p["multiplier"],
        shift=p["shift"],
    )
    np.testing.assert_array_equal(run(_program(x, p, out_zp), [x]), want)


@needs_c
def test_kernel_refuses_weights_that_are_not_trailing_dims(run):
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (3, 5), dtype=I8)
    p = _params(rng, 3, 0.1, 0.1, 1e-5)
    with pytest.raises(RuntimeFailure, match="argument 1"):
        run(_program(x, p, 0), [x])


@pytest.mark.parametrize("n,in_scale", [(8, 0.05), (64, 0.02), (384, 0.1)])
def test_reference_tracks_float_layer_norm(n, in_scale):
    rng = np.random.default_rng(n)
    zp, out_scale, out_zp = 5, 0.03, -2
    x = rng.integers(-100, 100, (6, n), dtype=I8)
    gamma, beta = rng.normal(1, 0.3, n), rng.normal(0, 0.3, n)
    p = layer_norm_params(gamma, beta, n, 1e-5, in_scale, out_scale)
    got = quantized_layer_norm(
        x,
        p["weight"],
        p["bias"],
        epsilon=p["epsilon"],
        output_zero_point=out_zp,
        multiplier=p["multiplier"],
        shift=p["shift"],
    )
    real = torch.nn.functional.layer_norm(
        torch.tensor((x.astype(np.float64) - zp) * in_scale), (n,), torch.tensor(gamma), torch.tensor(beta), 1e-5
    ).numpy()
    want = np.clip(np.round(real / out_scale) + out_zp, -128, 127)
    assert np.abs(got.astype(np.int64) - want).max() <= 1


class LayerNormMLP(nn.Module):
    def __init__(self, d=32, affine=True):
        super().__init__()
        self.a, self.ln, self.b = nn.Linear(d, d), nn.LayerNorm(d, elementwise_affine=affine), nn.Linear(d, 10)
        if affine:
            with torch.no_grad():
                self.ln.weight.uniform_(0.5, 1.5)
                self.ln.bias.uniform_(-0.3, 0.3)

    def forward(self, x):
        return self.b(self.ln(self.a(x)))


class LayerNorm2d(nn.Module):
    """Normalized over the last two dims."""

    def __init__(self):
        super().__init__()
        self.a, self.ln = nn.Linear(8, 8), nn.LayerNorm([4, 8])

    def forward(self, x):
        return self.ln(self.a(x))


CASES = {
    "affine": (lambda: LayerNormMLP(), (3, 5, 32)),
    "no_affine": (lambda: LayerNormMLP(affine=False), (4, 32)),
    "two_dims": (LayerNorm2d, (2, 4, 8)),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def lowered(request):
    make, shape = CASES[request.param]
    torch.manual_seed(5)
    model = make().eval()
    program, quantized = M.lower(model, shape)
    return model, program, quantized, shape


def test_lowers_to_layer_norm_without_fallback(lowered):
    _model, program, _q, _shape = lowered
    ops = M.ops(program)
    assert "cortex_m::quantized_layer_norm.out" in ops
    assert not any(op.startswith("aten::") for op in ops), ops


def test_close_to_float(lowered):
    model, program, quantized, shape = lowered
    worst = M.cosine_only(model, program, shape)
    assert worst >= 0.99


@needs_c
def test_host_runtime_equals_reference(lowered):
    _model, program, _q, shape = lowered
    M.check_host_bit_exact(program, shape)
