"""int8 log_softmax (cortex_m::log_softmax, our integer arithmetic: mcu_export/int8/reference/log_softmax.py,
output fixed at 16/256, 127): the host C kernel equals the reference bit for bit over drawn shapes and
scales, the reference tracks float log_softmax of the dequantized input (and the fake-quantized result)
within an output step, and a classifier head lowers to it with no fp32 fallback."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

import int8_model_checks as M
from cortex_m_programs import BAD_SHAPE, BAD_VALUE, NCHW_CHANNELS_LAST, OpProgram, pte_runner
from mcu_export.api import export
from mcu_export.assets import asset_dir
from mcu_export.errors import RuntimeFailure
from mcu_export.int8.reference.log_softmax import (
    LN2_Q26,
    LN_TABLE,
    MAX_ROW,
    OUTPUT_SCALE,
    OUTPUT_ZERO_POINT,
    log_of_sum,
    log_softmax_s8,
)
from mcu_export.int8.reference.softmax import softmax_params

needs_c = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs cmake, ninja and a C compiler"
)
I8 = np.int8


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return pte_runner(tmp_path_factory.mktemp("log_softmax"))


def _program(x, scale, dim=-1, dim_order=None):
    mult, shift, diff_min = softmax_params(scale)
    prog = OpProgram("cortex_m::log_softmax.out")
    xi, out = prog.input(x, dim_order), prog.planned(x.shape, I8, dim_order)
    return prog.build([xi, prog.int_(dim), prog.int_(mult), prog.int_(shift), prog.int_(diff_min)], out)


def _reference(x, scale):
    return log_softmax_s8(x, *softmax_params(scale))


def test_c_kernel_holds_the_reference_constants():
    source = (asset_dir("runtime_c") / "kernels" / "cortex_m" / "mx_k_cortex_m_log_softmax_out.c").read_text()
    table = re.search(r"LN_TABLE\[[^]]*\] = \{([^}]*)\}", source)
    assert table is not None and tuple(int(v) for v in table.group(1).split(",")) == LN_TABLE
    assert f"LN2_Q26 = {LN2_Q26};" in source


def test_log_of_sum_is_close_to_ln():
    for total in (1 << 19, 3 << 19, 1000 << 19, (1 << 31) - 1):
        assert abs(log_of_sum(total) / 2**26 - np.log(total / 2**19)) < 2e-4


@needs_c
@settings(max_examples=20, deadline=None)
@given(
    lead=st.lists(st.integers(1, 4), min_size=0, max_size=2),
    row=st.integers(1, 300),
    scale=st.floats(2e-3, 0.5),
    seed=st.integers(0, 2**31),
)
def test_kernel_matches_reference(run, lead, row, scale, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, tuple(lead) + (row,), dtype=I8)
    if rng.random() < 0.2:  # equal entries: ln(row) alone
        x[...] = x.reshape(-1)[0]
    np.testing.assert_array_equal(run(_program(x, scale), [x]), _reference(x, scale))


@needs_c
def test_kernel_over_channels_of_a_channels_last_tensor(run):
    """C is the innermost memory dim of a channels-last tensor: log_softmax over dim 1 runs in rows."""
    nhwc = np.random.default_rng(3).integers(-128, 128, (1, 3, 4, 9), dtype=I8)
    x = np.ascontiguousarray(nhwc.transpose(0, 3, 1, 2))
    got = run(_program(x, 0.1, dim=1, dim_order=NCHW_CHANNELS_LAST), [x])
    np.testing.assert_array_equal(got, _reference(nhwc, 0.1).transpose(0, 3, 1, 2))


@needs_c
def test_longest_row_and_refusals(run):
    x = np.random.default_rng(4).integers(-128, 128, (1, MAX_ROW), dtype=I8)
    np.testing.assert_array_equal(run(_program(x, 0.05), [x]), _reference(x, 0.05))
    long = np.zeros((1, MAX_ROW + 1), I8)
    with pytest.raises(RuntimeFailure, match=BAD_SHAPE):
        run(_program(long, 0.05), [long])
    rows = np.zeros((3, 4), I8)
    with pytest.raises(RuntimeFailure, match=BAD_VALUE):  # dim 0 is not the innermost memory dim
        run(_program(rows, 0.05, dim=0), [rows])


@pytest.mark.parametrize("scale", [0.004, 0.03, 0.1, 0.4])
def test_reference_tracks_float_and_fake_quant(scale):
    rng = np.random.default_rng(int(scale * 1000))
    x = rng.integers(-128, 128, (64, 10), dtype=I8)
    x[:8] = rng.integers(-3, 3, (8, 10))  # near-uniform rows: the sum dominates
    x[8:16, 0] = 127  # one entry far above the rest
    ours = (_reference(x, scale).astype(np.float64) - OUTPUT_ZERO_POINT) * OUTPUT_SCALE
    exact = torch.log_softmax(torch.from_numpy(x.astype(np.float32) * np.float32(scale)), -1)
    fake = torch.clamp(torch.round(exact / OUTPUT_SCALE) + OUTPUT_ZERO_POINT, -128, 127)
    steps = np.abs(ours / OUTPUT_SCALE + OUTPUT_ZERO_POINT - fake.numpy())
    assert steps.max() <= 1, steps.max()
    assert np.mean(steps == 0) > 0.9
    unclipped = exact.numpy() > -255 * OUTPUT_SCALE
    assert np.abs(ours - exact.numpy())[unclipped].max() <= OUTPUT_SCALE


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(16, 32), nn.Linear(32, 10)

    def forward(self, x):
        return torch.log_softmax(self.b(torch.relu(self.a(x))), dim=-1)


SHAPE = (4, 16)


@pytest.fixture(scope="module")
def lowered():
    torch.manual_seed(7)
    model = Head().eval()
    program, quantized = M.lower(model, SHAPE)
    return model, program, quantized


def test_head_lowers_to_one_log_softmax(lowered):
    _model, program, _q = lowered
    ops = M.ops(program)
    assert ops.count("cortex_m::log_softmax.out") == 1, ops
    assert not any(op.startswith("aten::") for op in ops), ops


def test_head_close_to_float_and_fake_quant(lowered):
    model, program, quantized = lowered
    assert M.output_scale(quantized) == OUTPUT_SCALE
    M.check_against_torch(model, program, quantized, SHAPE)


@needs_c
def test_head_host_runtime_equals_reference(lowered):
    _model, program, _q = lowered
    M.check_host_bit_exact(program, SHAPE)


@pytest.mark.slow
def test_log_softmax_over_channels_of_a_conv():
    """Over C of a conv's channels-last output: the kernel runs on it in place of a layout copy."""

    class ConvHead(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 6, 1)

        def forward(self, x):
            return torch.log_softmax(self.conv(x), dim=1)

    torch.manual_seed(9)
    model, shape = ConvHead().eval(), (1, 3, 4, 4)
    program, quantized = M.lower(model, shape)
    assert M.ops(program).count("cortex_m::log_softmax.out") == 1
    M.check_against_torch(model, program, quantized, shape)
    if not any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")):
        M.check_host_bit_exact(program, shape)


@pytest.mark.slow
def test_export_without_fallback():
    """The public API with fallback=False: a log_softmax over the last dim needs no fp32 kernel."""
    torch.manual_seed(8)
    model = Head().eval()
    calib = M.data(SHAPE, 8, 1)
    artifact = export(model, calib[0], quantize="int8", calibrate=calib, fallback=False)
    assert "cortex_m::log_softmax.out" in M.ops(artifact.program)
