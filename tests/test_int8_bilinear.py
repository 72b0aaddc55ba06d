"""int8 bilinear upsampling (cortex_m::quantized_upsample_bilinear2d, TOSA's integer RESIZE BILINEAR with a
rounding division: mcu_export/int8/reference/bilinear.py): the reference is within half a step of torch's float
bilinear on the dequantized input, the host C kernel equals it bit for bit over drawn shapes and both layouts,
and bilinear models lower to it with no fp32 fallback, host C == interpreter."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn
from torch.nn import functional as F

import int8_model_checks as M
from cortex_m_programs import BAD_SHAPE, NCHW_CHANNELS_LAST, OpProgram, pte_runner
from mcu_export.errors import RuntimeFailure
from mcu_export.int8.reference.bilinear import upsample_bilinear2d_s8
from tiers import fast_first

needs_c = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs cmake, ninja and a C compiler"
)
OP = "cortex_m::quantized_upsample_bilinear2d.out"
I8 = np.int8


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize(
    "in_hw, out_hw", [((4, 5), (8, 10)), ((3, 3), (7, 5)), ((6, 4), (6, 4)), ((5, 7), (3, 4)), ((1, 3), (4, 1))]
)
def test_reference_within_half_a_step_of_torch(in_hw, out_hw, align):
    rng = np.random.default_rng(sum(in_hw) * 31 + sum(out_hw))
    scale, zp = 0.037, 11
    q = rng.integers(-128, 128, (2, 3, *in_hw), dtype=I8)
    got = upsample_bilinear2d_s8(q, out_hw, align)
    real = F.interpolate(
        torch.tensor((q.astype(np.float64) - zp) * scale), size=out_hw, mode="bilinear", align_corners=align
    ).numpy()
    steps = np.abs((got.astype(np.float64) - zp) * scale - real) / scale
    assert steps.max() <= 0.5 + 1e-6, steps.max()


def test_reference_of_scale_two_is_torchs_scale_factor():
    """F.interpolate(scale_factor=2) (what models write) places the taps as size=2 * in does."""
    q = np.random.default_rng(0).integers(-128, 128, (1, 2, 5, 6), dtype=I8)
    real = F.interpolate(torch.tensor(q.astype(np.float64)), scale_factor=2.0, mode="bilinear").numpy()
    assert np.abs(upsample_bilinear2d_s8(q, (10, 12), False) - real).max() <= 0.5 + 1e-9


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return pte_runner(tmp_path_factory.mktemp("bilinear"))


def _program(x, out_hw, align, channels_last):
    order = NCHW_CHANNELS_LAST if channels_last else None
    prog = OpProgram(OP)
    xi = prog.input(x, order)
    out = prog.planned((*x.shape[:2], *out_hw), I8, order)
    return prog.build([xi, prog.bool_(align)], out)


@needs_c
@settings(max_examples=30, deadline=None)
@given(
    nc=st.tuples(st.integers(1, 2), st.integers(1, 5)),
    in_hw=st.tuples(st.integers(1, 9), st.integers(1, 9)),
    out_hw=st.tuples(st.integers(1, 20), st.integers(1, 20)),
    align=st.booleans(),
    channels_last=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_kernel_matches_reference(run, nc, in_hw, out_hw, align, channels_last, seed):
    x = np.random.default_rng(seed).integers(-128, 128, (*nc, *in_hw), dtype=I8)
    got = run(_program(x, out_hw, align, channels_last), [x])
    np.testing.assert_array_equal(got, upsample_bilinear2d_s8(x, out_hw, align))


@needs_c
def test_kernel_at_the_weight_limit_matches_reference(run):
    """N = 2048 * 2048 = 2**22, the largest accepted, with the extreme values: the sums' int32 edge."""
    x = np.array([[-128, 127], [127, -128]], I8).reshape(1, 1, 2, 2)
    x = np.concatenate([x, np.full_like(x, -128)], axis=1)
    got = run(_program(x, (2049, 2049), True, False), [x])
    np.testing.assert_array_equal(got, upsample_bilinear2d_s8(x, (2049, 2049), True))


@needs_c
def test_kernel_refuses_weights_past_int32(run):
    x = np.zeros((1, 1, 2, 2), I8)
    with pytest.raises(RuntimeFailure, match=BAD_SHAPE):  # 8194 * 2050 > 2**22
        run(_program(x, (4097, 1025), False, False), [x])


class UpNet(nn.Module):
    def __init__(self, up):
        super().__init__()
        self.conv1, self.conv2, self.up = nn.Conv2d(3, 6, 3, padding=1), nn.Conv2d(6, 4, 3, padding=1), up

    def forward(self, x):
        return self.conv2(self.up(F.relu(self.conv1(x))))


class Fn(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, x):
        return F.interpolate(x, mode="bilinear", **self.kw)


CASES = {
    "x2": dict(scale_factor=2.0),
    "x2_align": dict(scale_factor=2.0, align_corners=True),
    "size": dict(size=(7, 11)),
    "size_align": dict(size=(9, 5), align_corners=True),
    "x3_module": None,
}
SHAPE = (1, 3, 6, 8)


@pytest.fixture(scope="module", params=fast_first(sorted(CASES), keep=2))
def lowered(request):
    torch.manual_seed(3)
    kw = CASES[request.param]
    up = nn.Upsample(scale_factor=3, mode="bilinear") if kw is None else Fn(**kw)
    model = UpNet(up).eval()
    program, quantized = M.lower(model, SHAPE)
    return model, program, quantized


def test_lowers_to_bilinear_without_fallback(lowered):
    _model, program, _q = lowered
    ops = M.ops(program)
    assert OP in ops
    assert not any(op.startswith("aten::") for op in ops), ops


def test_close_to_float_and_fake_quant(lowered):
    model, program, quantized = lowered
    assert M.check_against_torch(model, program, quantized, SHAPE) >= 0.99


@needs_c
def test_host_runtime_equals_reference(lowered):
    _model, program, _q = lowered
    M.check_host_bit_exact(program, SHAPE)


@pytest.mark.slow
def test_fractional_scale_factor_is_refused_by_name():
    model = UpNet(Fn(scale_factor=1.3)).eval()  # 6 * 1.3 is not whole: torch places taps by 1 / 1.3
    with pytest.raises(Exception, match="whole output size"):
        M.lower(model, SHAPE)
