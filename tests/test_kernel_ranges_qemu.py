"""The arithmetic edges of test_kernel_ranges on the DSP and MVE paths, in firmware under QEMU: softmax rows
whose sum of exps passes 2^28 (the division by up to 2^34 that the scalar path now writes as 0) and a shift
of 31, bit-exact with the reference on Cortex-M33 (DSP) and Cortex-M55 (MVE)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from cortex_m_programs import OpProgram
from mcu_export.firmware.model_project import build_model_firmware
from mcu_export.int8.reference.softmax import arm_softmax_s8, softmax_params
from mcu_export.runners import run_model_firmware

pytestmark = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")),
    reason="needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja",
)

ROWS = {
    "equal-row-4095": np.zeros((1, 4095), np.int8),
    "random-rows-600": np.random.default_rng(3).integers(-128, 128, (3, 600), np.int8),
    "shift-31": np.arange(-128, 128, dtype=np.int8).reshape(4, 64),
}


def _program(x, mult, shift, diff_min):
    p = OpProgram("cortex_m::softmax.out")
    xi, out = p.input(x), p.planned(x.shape, np.int8)
    args = [xi, p.int_(-1), p.int_(0), p.int_(-128), p.int_(mult), p.int_(shift), p.int_(diff_min)]
    return p.build(args, out)


@pytest.mark.parametrize("board", ["mps2-an505", "corstone-300"])
@pytest.mark.parametrize("name", sorted(ROWS))
def test_softmax_edges_on_qemu_match_the_reference(tmp_path, board, name):
    x = ROWS[name]
    params = (1 << 30, 31, 0) if name == "shift-31" else softmax_params(1.0 / 16)
    pte = tmp_path / "softmax.pte"
    pte.write_bytes(_program(x, *params))
    build = build_model_firmware(tmp_path, board, model=pte)
    run = run_model_firmware(build, board, [x])
    np.testing.assert_array_equal(np.asarray(run.outputs[0]).reshape(x.shape), arm_softmax_s8(x, *params))
