"""int8 strided transposed convolution (cortex_m::quantized_transpose_conv2d, CMSIS-NN's arm_transpose_conv_s8
arithmetic: mcu_export/int8/reference/transpose_conv.py). The reference's sums are torch's conv_transpose2d on
the offset integers, its output within a step of torch on the dequantized values; the host C kernel equals it
bit for bit over drawn geometries and refuses what Arm's kernel cannot run; with $CMSIS_NN_REPO set, the reference
reproduces Arm's own arm_transpose_conv_s8 test vectors; models with strided and
output-padded ConvTranspose2d lower with no fp32 fallback, host C == interpreter, close to fp32 torch."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch import nn

import int8_model_checks as M
from cortex_m_programs import BAD_SHAPE, BAD_VALUE, NCHW_CHANNELS_LAST, OpProgram, pte_runner
from mcu_export.errors import RuntimeFailure
from mcu_export.int8.arith import quantize_multiplier
from mcu_export.int8.lower.scratch import transpose_conv_scratch
from mcu_export.int8.reference.transpose_conv import arm_transpose_conv_s8
from tiers import fast_first

needs_c = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs cmake, ninja and a C compiler"
)
OP = "cortex_m::quantized_transpose_conv2d.out"
I8, I32 = np.int8, np.int32


def _out_hw(in_hw, k, stride, pad, out_pad):
    return tuple((i - 1) * s - 2 * p + kk + op for i, s, p, kk, op in zip(in_hw, stride, pad, k, out_pad))


def test_reference_sums_are_torchs_transposed_convolution():
    """With multiplier 2^30 and shift 1 requantization is the identity: the int32 sums themselves, cropped."""
    rng = np.random.default_rng(1)
    x = rng.integers(-3, 4, (2, 4, 5, 3), dtype=I8)  # NHWC, small: the sums stay inside int8
    w = rng.integers(-2, 3, (5, 3, 2, 3), dtype=I8)  # [C_out, KH, KW, C_in]
    bias = rng.integers(-5, 6, 5).astype(I32)
    stride, pad, out_pad, offset = (2, 3), (1, 0), (1, 2), 1
    out_hw = _out_hw((4, 5), (3, 2), stride, pad, out_pad)
    got = arm_transpose_conv_s8(
        x,
        w,
        bias,
        input_offset=offset,
        output_offset=0,
        multipliers=[1 << 30] * 5,
        shifts=[1] * 5,
        stride=stride,
        padding=pad,
        output_hw=out_hw,
    )
    want = torch.nn.functional.conv_transpose2d(
        torch.tensor(x.astype(np.float64) + offset).permute(0, 3, 1, 2),
        torch.tensor(w.astype(np.float64)).permute(3, 0, 1, 2),  # torch: [C_in, C_out, KH, KW]
        torch.tensor(bias.astype(np.float64)),
        stride=stride,
        padding=pad,
        output_padding=out_pad,
    ).permute(0, 2, 3, 1)
    assert np.abs(want.numpy()).max() < 127
    np.testing.assert_array_equal(got, want.numpy().astype(I8))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return pte_runner(tmp_path_factory.mktemp("transpose_conv"))


def _case(rng, n, c_in, c_out, in_hw, k, stride, pad, out_pad, with_bias):
    x = rng.integers(-128, 128, (n, *in_hw, c_in), dtype=I8)  # NHWC
    w = rng.integers(-127, 128, (c_out, *k, c_in), dtype=I8)
    bias = rng.integers(-3000, 3000, c_out).astype(I32) if with_bias else None
    pairs = [quantize_multiplier(s) for s in rng.uniform(1e-4, 4e-3, c_out)]
    mults, shifts = np.array([m for m, _ in pairs], I32), np.array([s for _, s in pairs], I32)
    q = dict(input_offset=int(rng.integers(-127, 128)), output_offset=int(rng.integers(-128, 128)))
    q.update(multipliers=mults, shifts=shifts, stride=stride, padding=pad)
    return x, w, bias, q


def _program(x, w, bias, q, out_hw, out_pad, act=(-128, 127), dilation=(1, 1), scratch=None):
    n, h, wd, c_in = x.shape
    c_out = w.shape[0]
    size = transpose_conv_scratch("scalar", x.shape, w.shape, (n, *out_hw, c_out), q["stride"])
    prog = OpProgram(OP)
    xi = prog.input(np.ascontiguousarray(x.transpose(0, 3, 1, 2)), NCHW_CHANNELS_LAST)
    out = prog.planned((n, c_out, *out_hw), I8, NCHW_CHANNELS_LAST)
    args = [
        xi,
        prog.const(w),
        prog.const(bias) if bias is not None else prog.null(),
        prog.ints(q["stride"]),
        prog.ints(q["padding"]),
        prog.ints(out_pad),
        prog.ints(dilation),
        prog.int_(q["input_offset"]),
        prog.int_(q["output_offset"]),
        prog.const(q["multipliers"]),
        prog.const(q["shifts"]),
        prog.int_(act[0]),
        prog.int_(act[1]),
        prog.planned((size if scratch is None else scratch,), np.uint8),
        prog.planned((0,), np.uint8),
    ]
    return prog.build(args, out)


@needs_c
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 2),
    c_in=st.integers(1, 9),
    c_out=st.integers(1, 9),
    in_hw=st.tuples(st.integers(1, 6), st.integers(1, 6)),
    k=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    pad=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    out_pad=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    with_bias=st.booleans(),
    relu=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_kernel_matches_reference(run, n, c_in, c_out, in_hw, k, stride, pad, out_pad, with_bias, relu, seed):
    assume(all(op < s for op, s in zip(out_pad, stride)))
    out_hw = _out_hw(in_hw, k, stride, pad, out_pad)
    buffered = [(i - 1) * s + max(kk, s) for i, s, kk in zip(in_hw, stride, k)]
    assume(all(o >= 1 and p + o <= b for o, p, b in zip(out_hw, pad, buffered)))
    rng = np.random.default_rng(seed)
    x, w, bias, q = _case(rng, n, c_in, c_out, in_hw, k, stride, pad, out_pad, with_bias)
    act = (int(q["output_offset"]), 127) if relu else (-128, 127)
    want = arm_transpose_conv_s8(x, w, bias, output_hw=out_hw, activation=act, **q)
    got = run(_program(x, w, bias, q, out_hw, out_pad, act), [np.ascontiguousarray(x.transpose(0, 3, 1, 2))])
    np.testing.assert_array_equal(got, want.transpose(0, 3, 1, 2))


@needs_c
@pytest.mark.parametrize(
    "change, message",
    [
        (dict(dilation=(2, 2)), "argument 6"),  # Arm's kernel ignores dilation
        (dict(out_hw=(8, 7)), BAD_SHAPE),  # not torch's output size
        (dict(out_pad=(1, 1), out_hw=(9, 9)), BAD_SHAPE),  # past the rows Arm's kernel buffers (k = stride, p = 0)
        (dict(scratch=8), BAD_VALUE),
    ],
)
def test_kernel_refuses(run, change, message):
    rng = np.random.default_rng(0)
    x, w, bias, q = _case(rng, 1, 3, 2, (4, 4), (2, 2), (2, 2), (0, 0), (0, 0), True)
    out_hw, out_pad = change.pop("out_hw", (8, 8)), change.pop("out_pad", (0, 0))
    with pytest.raises(RuntimeFailure, match=message):
        run(_program(x, w, bias, q, out_hw, out_pad, **change), [np.ascontiguousarray(x.transpose(0, 3, 1, 2))])


class Decoder(nn.Module):
    def __init__(self, up: nn.Module, relu: bool):
        super().__init__()
        self.conv, self.up, self.relu = nn.Conv2d(3, 6, 3, padding=1), up, relu

    def forward(self, x):
        y = self.up(torch.relu(self.conv(x)))
        return torch.relu(y) if self.relu else y


CASES = {
    "k2_s2": (lambda: nn.ConvTranspose2d(6, 4, 2, stride=2), False),
    "k3_s2_p1_op1_relu": (lambda: nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1, output_padding=1), True),
    "k4_s2_p1": (lambda: nn.ConvTranspose2d(6, 5, 4, stride=2, padding=1), False),
    "k3x2_s3x2_no_bias": (lambda: nn.ConvTranspose2d(6, 3, (3, 2), stride=(3, 2), bias=False), True),
    "k1_s2": (lambda: nn.ConvTranspose2d(6, 4, 1, stride=2), False),
}
SHAPE = (1, 3, 6, 7)


@pytest.fixture(scope="module", params=fast_first(sorted(CASES), keep=2))
def lowered(request):
    factory, relu = CASES[request.param]
    torch.manual_seed(4)
    model = Decoder(factory(), relu).eval()
    program, quantized = M.lower(model, SHAPE)
    return model, program, quantized


def test_lowers_to_transposed_convolution(lowered):
    _model, program, _q = lowered
    ops = M.ops(program)
    assert ops.count(OP) == 1
    assert not any(op.startswith("aten::") for op in ops), ops


def test_close_to_float_and_fake_quant(lowered):
    model, program, quantized = lowered
    assert M.check_against_torch(model, program, quantized, SHAPE) >= 0.99


@needs_c
def test_host_runtime_equals_reference(lowered):
    _model, program, _q = lowered
    M.check_host_bit_exact(program, SHAPE)


def test_weights_are_quantized_per_output_channel(lowered):
    """arm_transpose_conv_s8 requantizes per output channel: torch's weight [C_in, C_out, KH, KW] is observed
    along axis 1."""
    _model, _program, quantized = lowered
    axes = [
        n.args[3]
        for n in quantized.ep.graph_module.graph.nodes
        if n.op == "call_function" and "dequantize_per_channel" in str(n.target)
    ]
    assert 1 in axes, axes


def _arm_test_data():
    """Arm's CMSIS-NN unit-test vectors (TFLite's outputs) from a CMSIS-NN checkout or bare git dir at
    $CMSIS_NN_REPO, or None."""
    root = os.environ.get("CMSIS_NN_REPO")
    if not root:
        return None
    root_path = Path(root)

    def show(rel: str) -> str:
        if (root_path / rel).is_file():
            return (root_path / rel).read_text()
        proc = subprocess.run(["git", f"--git-dir={root}", "show", f"HEAD:{rel}"], capture_output=True, text=True)
        return proc.stdout

    return show


@pytest.mark.parametrize("case", ["transpose_conv_1", "transpose_conv_2", "transpose_conv_3", "transpose_conv_4"])
def test_reference_and_kernel_reproduce_arms_test_vectors(run, case):
    show = _arm_test_data()
    if show is None:
        pytest.skip("set CMSIS_NN_REPO to a CMSIS-NN checkout (or bare git dir) for Arm's transpose_conv test data")
    folder = f"Tests/UnitTest/TestCases/TestData/{case}/"
    cfg = {k: int(v) for k, v in re.findall(r"#define \w+?_\d+_(\w+) (-?\d+)", show(folder + "config_data.h"))}
    assert cfg, f"no {case} in $CMSIS_NN_REPO"

    def array(name):
        found = re.search(r"\{(.*?)\}", show(folder + name + ".h"), re.S)
        return None if found is None else np.array([int(v) for v in re.findall(r"-?\d+", found.group(1))], np.int64)

    n, c_in, c_out = cfg["INPUT_BATCHES"], cfg["IN_CH"], cfg["OUT_CH"]
    bias = array("biases_data")
    x = array("input_data").astype(I8).reshape(n, cfg["INPUT_H"], cfg["INPUT_W"], c_in)
    w = array("weights_data").astype(I8).reshape(c_out, cfg["FILTER_Y"], cfg["FILTER_X"], c_in)
    bias = None if bias is None else bias.astype(I32)
    q = dict(
        input_offset=cfg["INPUT_OFFSET"],
        output_offset=cfg["OUTPUT_OFFSET"],
        multipliers=array("output_mult_data").astype(I32),
        shifts=array("output_shift_data").astype(I32),
        stride=(cfg["STRIDE_Y"], cfg["STRIDE_X"]),
        padding=(cfg["PAD_Y"], cfg["PAD_X"]),
    )
    act, out_hw = (cfg["OUT_ACTIVATION_MIN"], cfg["OUT_ACTIVATION_MAX"]), (cfg["OUTPUT_H"], cfg["OUTPUT_W"])
    want = array("output_ref_data").astype(I8).reshape(n, *out_hw, c_out)
    np.testing.assert_array_equal(arm_transpose_conv_s8(x, w, bias, activation=act, output_hw=out_hw, **q), want)
    if out_hw == _out_hw(x.shape[1:3], w.shape[1:3], q["stride"], q["padding"], (0, 0)):  # torch's size: 1, 2, 4
        got = run(_program(x, w, bias, q, out_hw, (0, 0), act), [np.ascontiguousarray(x.transpose(0, 3, 1, 2))])
        np.testing.assert_array_equal(got, want.transpose(0, 3, 1, 2))
