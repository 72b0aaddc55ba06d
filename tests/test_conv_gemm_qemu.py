"""The int8 convolution GEMM's paths in firmware under QEMU, bit-exact with the reference on Cortex-M55 (MVE) and
Cortex-M33 (DSP): the MVE GEMM takes four lhs rows at a time (a row left over runs as four copies of itself),
filters outer with the filter sums once when a call has more than four rows (1x1 convolutions), and, for im2col
blocks of up to 64 filters per group, the filters' constant parts precomputed once per call
(arm_nn_mat_mult_nt_t_s8_init); more filters keep the sums in the loop. Shapes here hit each of those with
column counts that are not a multiple of 16, odd filter counts, strides and padding."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import cortex_m_cases as C
from mcu_export.firmware.model_project import build_model_firmware
from mcu_export.runners import run_model_firmware
from tiers import fast_first

pytestmark = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")),
    reason="needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja",
)

SHAPES = {
    # im2col, 13 filters (init path, no bias), 42 pixels: ten blocks of four and two rows left over; K = 27
    "3x3-c3to13-pad-nobias": dict(h=6, w=7, c_in=3, c_out=13, bias=False),
    # 1x1 stride 1, 25 rows in one call: filters outer, six tiles and a row left over; K = 19
    "1x1-c19to7-25rows": dict(h=5, w=5, c_in=19, c_out=7, k=(1, 1), pad=(0, 0)),
    # 1x1 stride 2: five rows per call (a tile and a row left over), K = 33
    "1x1-c33to3-stride2": dict(h=9, w=10, c_in=33, c_out=3, k=(1, 1), pad=(0, 0), stride=(2, 2)),
    # 67 filters: past the init path's 64, the filter sums stay in the loop; stride 2 x 1, K = 45
    "3x3-c5to67-stride": dict(h=7, w=9, c_in=5, c_out=67, stride=(2, 1)),
    # 1xN over one row: in-place runs of 13 patches (filters outer) and padded patches one at a time
    "1xn-c4to5": dict(h=1, w=16, c_in=4, c_out=5, k=(1, 3), pad=(0, 1)),
    # two groups of 3 filters, each with its own init (grouped convolutions need a bias); dilation
    "grouped-dilated": dict(h=8, w=8, c_in=6, c_out=6, groups=2, dil=(2, 1), pad=(2, 1)),
}


@pytest.mark.parametrize("board", ["corstone-300", "mps2-an505"])
@pytest.mark.parametrize("shape", fast_first(SHAPES, keep=1))  # firmware builds: make test for the rest
@pytest.mark.slow
def test_conv_gemm_paths_on_qemu_match_the_reference(tmp_path, board, shape):
    case = C.conv_case(np.random.default_rng(sorted(SHAPES).index(shape) + 7), True, **SHAPES[shape])
    pte = tmp_path / "conv.pte"
    pte.write_bytes(case.pte)
    run = run_model_firmware(build_model_firmware(tmp_path, board, model=pte), board, case.inputs)
    got = np.asarray(run.outputs[0]).reshape(case.expected.shape)
    np.testing.assert_array_equal(got, case.expected)
