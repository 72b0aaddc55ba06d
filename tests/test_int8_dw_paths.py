"""The int8 depthwise paths over shapes picked to reach each branch, bit for bit with the reference, on the host
(plain C) and on QEMU per ISA (DSP: Cortex-M33, Cortex-M4; MVE: Cortex-M55). arm_nn_dw_conv_group_s8 runs output
rows with the same tap rows inside the input: on MVE in pairs of pixels (across row ends, an odd one left over),
eight channels a vector with a last partial block recomputed and a 64-channel chunk per tap table; on DSP pixel by
pixel, four channels a word, fewer than four in one word whose load must not pass the input's end. Shapes: taps in
the padding on every side, images narrower than the kernel, channel counts below 8 and 4 (the pixel path on MVE),
not a multiple of 4 or 8, past one chunk; strides 1 and 2, dilation (the pixel path on DSP), batches; and the
requantization corners (both shift signs, the largest multiplier)."""

import numpy as np
import pytest

import int8_harness as H
from mcu_export.int8.arith import quantize_multiplier
from mcu_export.int8.reference import depthwise
from mcu_export.int8.reference._common import conv_output_size
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

# (n, h, w, channels, kernel, stride, padding, dilation)
SHAPES = [
    (1, 5, 9, 16, (3, 3), (1, 1), (1, 1), (1, 1)),  # 9 columns: groups 4 + 4 + 1, both borders
    (1, 6, 7, 17, (3, 3), (1, 1), (1, 1), (1, 1)),  # 17 channels: a last block of 1, recomputed
    (1, 7, 6, 5, (3, 3), (2, 2), (1, 1), (1, 1)),  # stride 2, 3 columns
    (1, 4, 10, 3, (3, 3), (1, 1), (1, 1), (1, 1)),  # 3 channels: the pixel path (MVE) and the DSP tail
    (1, 4, 11, 1, (3, 3), (1, 2), (1, 1), (1, 1)),  # 1 channel
    (1, 5, 5, 2, (3, 3), (1, 1), (0, 0), (1, 1)),  # 2 channels, no padding: the last word would pass the input's end
    (1, 25, 5, 64, (3, 3), (1, 1), (1, 1), (1, 1)),  # DS-CNN's layer: rows of 5 = 4 + 1
    (1, 25, 5, 8, (10, 4), (1, 1), (4, 1), (1, 1)),  # DS-CNN's 10x4: taps outside on three sides
    (1, 9, 10, 6, (3, 3), (1, 1), (2, 2), (2, 2)),  # dilation 2 with padding 2
    (1, 8, 9, 7, (2, 3), (1, 2), (0, 1), (2, 1)),  # dilation in y only, stride 2 in x
    (1, 3, 2, 4, (5, 5), (1, 1), (2, 2), (1, 1)),  # image smaller than the kernel
    (2, 5, 6, 12, (3, 3), (2, 1), (1, 0), (1, 1)),  # two batches, padding in y only
    (1, 4, 5, 67, (3, 3), (1, 1), (1, 1), (1, 1)),  # a second chunk of 3 channels
    (1, 3, 13, 130, (1, 3), (1, 1), (0, 1), (1, 1)),  # three chunks, a one-row kernel
    (1, 6, 20, 4, (1, 9), (1, 1), (0, 4), (1, 1)),  # kernel wider than the MVE group's table: pixel by pixel
    (1, 5, 6, 20, (3, 3), (1, 1), (0, 0), (1, 1)),  # no padding: every tap inside
]

OPS = ["dw_opt", "dw_wrapper", "dw"]


def _case(rng, op, shape, extreme=None):
    n, h, w, c, k, stride, pad, dil = shape
    x = rng.integers(-128, 128, (n, h, w, c), dtype=np.int8)
    wt = rng.integers(-127, 128, (1, *k, c), dtype=np.int8)
    bias = rng.integers(-(1 << 16), 1 << 16, c).astype(np.int32)
    if extreme is None:
        pairs = [quantize_multiplier(float(np.exp(rng.uniform(np.log(1e-4), np.log(2.0))))) for _ in range(c)]
        in_off, out_off, act = int(rng.integers(-127, 129)), int(rng.integers(-128, 128)), (-100, 90)
    else:
        pairs, in_off, out_off, act = [extreme] * c, 128, -128, (-128, 127)
    oh, ow = (conv_output_size(s, kk, st, p, p, d) for s, kk, st, p, d in zip((h, w), k, stride, pad, dil))
    kw = dict(
        input_offset=in_off,
        output_offset=out_off,
        multipliers=[m for m, _ in pairs],
        shifts=[s for _, s in pairs],
        stride=stride,
        padding=pad,
        dilation=dil,
        activation=act,
        output_hw=(oh, ow),
    )
    return H.conv_case(op, x, wt, bias, **kw), depthwise.arm_depthwise_conv_s8(x, wt, bias, ch_mult=1, **kw)


def _batch():
    rng = np.random.default_rng(5)
    cases, wants = [], []
    for shape in SHAPES:
        dilated = shape[7] != (1, 1)
        for op in ["dw"] if dilated else OPS:
            case, want = _case(rng, op, shape)
            cases.append(case)
            wants.append(want)
    for extreme in [(2**31 - 1, 1), (2**30, -31), (1518500250, -7), (2**31 - 1, -1)]:
        case, want = _case(rng, "dw_opt", SHAPES[1], extreme)
        cases.append(case)
        wants.append(want)
    return cases, wants


def _check(results, cases, wants, where):
    for res, case, want in zip(results, cases, wants):
        assert res.status == 0, f"{where}: {case.op} returned status {res.status} (params {list(case.params)})"
        assert np.array_equal(res.out, want), (
            f"{where}: {case.op} differs from the reference in {int((res.out != want).sum())} of {want.size} "
            f"outputs (params {list(case.params)})"
        )


@pytest.mark.slow
def test_host_equals_reference(tmp_path):
    lib = H.CONV_FC.build_host_library(tmp_path)
    cases, wants = _batch()
    _check(H.host_run(lib, cases), cases, wants, "host")


@NEEDS_ARM_QEMU
@pytest.mark.slow
@pytest.mark.parametrize("board", ["corstone-300", "mps2-an505", "mps2-an386"])
def test_qemu_equals_reference(board, tmp_path):
    elf = H.CONV_FC.build_firmware(board, tmp_path / "fw")
    cases, wants = _batch()
    results, _ = H.CONV_FC.qemu_run(board, elf, tmp_path / "run", cases)
    _check(results, cases, wants, board)
