"""The cortex_m runtime kernels refuse bad programs: a scratch buffer too small for this target, wrong output
sizes and layouts, out-of-range values and wrong argument counts; at load, naming instruction and argument."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import cortex_m_cases as C
from cortex_m_programs import BAD_SHAPE, BAD_VALUE, NCHW_CHANNELS_LAST, OpProgram, pte_runner
from mcu_export.errors import RuntimeFailure
from mcu_export.host_runtime import build_host_runner
from mcu_export.ops.table import BY_QUALIFIED
from mcu_export.pte import program as P

pytestmark = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs cmake, ninja and a C compiler"
)

I8 = np.int8


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return pte_runner(tmp_path_factory.mktemp("cortex_m_errors"))


@pytest.mark.parametrize(
    "build",
    [
        lambda rng: C.conv_case(rng, False, scratch_short=1, isas=("scalar",)),
        lambda rng: C.conv_case(rng, True, h=1, k=(1, 3), pad=(0, 1), c_in=4, scratch_short=1, isas=("scalar",)),
    ],
    ids=["conv", "conv-1xn"],
)
def test_scratch_too_small_for_this_target_is_refused(run, build):
    """The host build asks the same _get_buffer_size as the function it calls: one byte short of what the
    scalar path needs fails (the 1x1 cases above run with the empty scratch they need)."""
    case = build(np.random.default_rng(0))
    with pytest.raises(RuntimeFailure, match=BAD_VALUE):
        run(case.pte, case.inputs)


def _max_pool_2x2(p, xi):
    """The arguments of a 2x2, stride-2 max pool over xi, zero points 0, no clamp."""
    return [xi, p.ints([2, 2]), p.ints([2, 2]), p.ints([0, 0]), p.ints([1, 1]), p.bool_(False)] + [
        p.int_(v) for v in (0, 0, -128, 127)
    ]


def test_wrong_output_size_and_layout_are_refused(run):
    x = np.zeros((1, 4, 5, 5), I8)
    p = OpProgram("cortex_m::quantized_max_pool2d.out")
    xi, out = p.input(x, NCHW_CHANNELS_LAST), p.planned((1, 4, 3, 3), I8, NCHW_CHANNELS_LAST)
    args = _max_pool_2x2(p, xi)
    with pytest.raises(RuntimeFailure, match=BAD_SHAPE):  # 5 // 2 = 2, not 3
        run(p.build(args, out), [x])
    p = OpProgram("cortex_m::quantized_max_pool2d.out")
    xi, out = p.input(x), p.planned((1, 4, 2, 2), I8)  # NCHW bytes, not channels-last
    args = _max_pool_2x2(p, xi)
    with pytest.raises(RuntimeFailure, match=BAD_VALUE):
        run(p.build(args, out), [x])


def test_bad_argument_values_and_counts(run):
    a = np.zeros((4,), I8)
    p = OpProgram("cortex_m::quantized_mul.out")
    ai, bi, out = p.input(a), p.input(a), p.planned(a.shape, I8)
    pte = p.build([ai, p.int_(300), bi, p.int_(0), p.int_(0), p.int_(1 << 30), p.int_(0)], out)  # zp 300
    with pytest.raises(RuntimeFailure, match=BAD_VALUE):
        run(pte, [a, a])
    p = OpProgram("cortex_m::quantized_activation.out")
    ai, out = p.input(a), p.planned(a.shape, I8)
    with pytest.raises(RuntimeFailure, match=BAD_SHAPE):  # a 255-entry table
        run(p.build([ai, p.const(np.zeros(255, I8))], out), [a])
    p = OpProgram("cortex_m::quantized_activation.out")
    ai, out = p.input(a), p.planned(a.shape, I8)
    with pytest.raises(RuntimeFailure, match="wrong number of arguments"):
        run(p.build([ai], out), [a])


def _load_only(pte: bytes, tmp_path):
    path = tmp_path / "bad.pte"
    path.write_bytes(pte)
    return subprocess.run([str(build_host_runner()), str(path), "--load-only"], capture_output=True, text=True)


@pytest.mark.parametrize(
    "op, arg, build",
    [
        # a zero point out of the int8 range
        (
            "cortex_m::quantized_mul.out",
            "self_zero_point",
            lambda p, a: p.build([a[0], p.int_(300), a[1], p.int_(0), p.int_(0), p.int_(1 << 30), p.int_(0)], a[2]),
        ),
        # one per-channel shift out of [-31, 31]: checked at load, not as the channels are converted
        (
            "cortex_m::quantized_linear.out",
            "requantize_shifts",
            lambda p, a: p.build(
                [
                    a[0],
                    p.const(np.ones((4, 4), I8)),
                    p.null(),
                    p.null(),
                    p.int_(0),
                    p.int_(0),
                    p.int_(0),
                    p.ints([1 << 30] * 4),
                    p.ints([0, 0, 40, 0]),
                    p.int_(127),
                    p.int_(-128),
                ],
                a[2],
            ),
        ),
        # a double where the schema has a tensor
        ("cortex_m::quantized_activation.out", "lut", lambda p, a: p.build([a[0], p.double(1.0)], a[2])),
    ],
)
def test_bad_argument_is_refused_at_load_naming_instruction_and_argument(op, arg, build, tmp_path):
    a = np.zeros((1, 4), I8)
    p = OpProgram(op)
    proc = _load_only(build(p, (p.input(a), p.input(a), p.planned(a.shape, I8))), tmp_path)
    assert proc.returncode == 3, proc.stdout
    index = BY_QUALIFIED[op].arg_index(arg)
    assert proc.stderr.rstrip().endswith(f"(method forward, instruction 0, argument {index}, op {op})"), proc.stderr


def test_a_move_call_is_refused_at_load(tmp_path):
    """Kernels run unchecked, and ExecuTorch writes MoveCall only for control flow, which the runtime does not
    run: a MoveCall, even one that would copy a value over an equal one, is refused when the method loads."""
    a = np.zeros((1, 4), I8)
    p = OpProgram("cortex_m::quantized_mul.out")
    ai, bi, out = p.input(a), p.input(a), p.planned(a.shape, I8)
    zp = p.int_(0)
    p.calls.append(P.MoveCall(p.int_(0), zp))
    proc = _load_only(p.build([ai, zp, bi, p.int_(0), p.int_(0), p.int_(1 << 30), p.int_(0)], out), tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert "the program uses a feature this runtime does not support" in proc.stderr, proc.stderr
    assert "(method forward, instruction 0)" in proc.stderr
