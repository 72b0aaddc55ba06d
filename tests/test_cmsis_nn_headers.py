"""cmsis_nn_kernels/include is a drop-in for Arm's CMSIS-NN Include/: code written against Arm's header names and
layout (TFLM's CMSIS-NN kernels among it) compiles unchanged against -Icmsis_nn_kernels/include, and sees the
ISA macros Arm's arm_nn_math_types.h defines, under Arm's conditions: ARM_MATH_DSP with the DSP extension
(__ARM_FEATURE_DSP == 1), ARM_MATH_MVEI with integer Helium (__ARM_FEATURE_MVE bit 0), ARM_MATH_MVEF and
ARM_MATH_MVE_FLOAT16 with floating-point Helium (bit 1) unless the user defines ARM_MATH_AUTOVECTORIZE, and all
three Helium ones when the user defines ARM_MATH_HELIUM. Without these, such code silently takes its scalar
path on every core."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GCC = "arm-none-eabi-gcc"

pytestmark = pytest.mark.skipif(shutil.which(GCC) is None, reason=f"needs {GCC} (gcc-arm-none-eabi)")

# Each EXPECT_* is 1 when the macro must be defined, 0 when it must not.
USER = r"""
#include "arm_nnfunctions.h"
#include "arm_nn_types.h"
#include "arm_nnsupportfunctions.h"
#include "arm_nn_math_types.h"
#include "Internal/arm_nn_compiler.h"

#if EXPECT_DSP != defined(ARM_MATH_DSP)
#error "ARM_MATH_DSP"
#endif
#if EXPECT_MVEI != defined(ARM_MATH_MVEI)
#error "ARM_MATH_MVEI"
#endif
#if EXPECT_MVEF != defined(ARM_MATH_MVEF)
#error "ARM_MATH_MVEF"
#endif
#if EXPECT_MVEF != defined(ARM_MATH_MVE_FLOAT16)
#error "ARM_MATH_MVE_FLOAT16"
#endif
#if defined(ARM_MATH_DSP) && ARM_MATH_DSP != 1
#error "ARM_MATH_DSP is 1 when defined"
#endif

/* What such code uses besides: the API's types and functions, the limits, the CMSIS keyword macros. */
__STATIC_FORCEINLINE int32_t clamp_q7(int32_t x)
{
    return x < NN_Q7_MIN ? NN_Q7_MIN : (x > NN_Q7_MAX ? NN_Q7_MAX : x);
}

arm_cmsis_nn_status user_softmax(const int8_t *__RESTRICT in, int8_t *__RESTRICT out, const cmsis_nn_dims *dims)
{
    arm_softmax_s8(in, dims->n, dims->c, 1 << 30, clamp_q7(NN_Q31_MAX), -248, out);
    return ARM_CMSIS_NN_SUCCESS;
}
"""

BOARD_FLAGS = ("-mthumb", "-mfloat-abi=hard")
# (flags, (DSP, MVEI, MVEF))
CASES = {
    "cortex-m55": (("-mcpu=cortex-m55", *BOARD_FLAGS), (1, 1, 1)),
    "cortex-m55+nomve.fp": (("-mcpu=cortex-m55+nomve.fp", *BOARD_FLAGS), (1, 1, 0)),
    "cortex-m55-autovectorize": (("-mcpu=cortex-m55", *BOARD_FLAGS, "-DARM_MATH_AUTOVECTORIZE"), (1, 1, 0)),
    "cortex-m55-helium": (("-mcpu=cortex-m55+nomve.fp", *BOARD_FLAGS, "-DARM_MATH_HELIUM"), (1, 1, 1)),
    "cortex-m33": (("-mcpu=cortex-m33", *BOARD_FLAGS), (1, 0, 0)),
    "cortex-m4": (("-mcpu=cortex-m4", *BOARD_FLAGS, "-mfpu=fpv4-sp-d16"), (1, 0, 0)),
    "cortex-m33+nodsp": (("-mcpu=cortex-m33+nodsp", *BOARD_FLAGS), (0, 0, 0)),
    "cortex-m0plus": (("-mcpu=cortex-m0plus", "-mthumb", "-mfloat-abi=soft"), (0, 0, 0)),
}


def _accepts(flags) -> bool:
    probe = subprocess.run([GCC, *flags, "-E", "-x", "c", os.devnull], capture_output=True, text=True)
    return probe.returncode == 0


@pytest.mark.parametrize("name", sorted(CASES))
def test_arm_include_layout_and_isa_macros(tmp_path, name):
    flags, (dsp, mvei, mvef) = CASES[name]
    if not _accepts(flags):
        pytest.skip(f"{GCC} does not accept {' '.join(flags)}")
    src = tmp_path / "user.c"
    src.write_text(USER)
    expect = [f"-DEXPECT_DSP={dsp}", f"-DEXPECT_MVEI={mvei}", f"-DEXPECT_MVEF={mvef}"]
    cmd = [GCC, *flags, *expect, "-O2", "-std=c11", "-ffreestanding", "-Wall", "-Wextra", "-Werror"]
    cmd += [f"-I{ROOT / 'cmsis_nn_kernels' / 'include'}", "-c", str(src), "-o", str(tmp_path / "user.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_our_kernels_take_the_path_arm_math_names():
    """Our kernels' ARM_NN_USE_MVE / ARM_NN_USE_DSP follow ARM_MATH_MVEI / ARM_MATH_DSP (MVE first)."""
    probe = r"""
#include "arm_nnsupportfunctions.h"
#if defined(ARM_MATH_MVEI) != defined(ARM_NN_USE_MVE)
#error "MVE"
#endif
#if (defined(ARM_MATH_DSP) && !defined(ARM_MATH_MVEI)) != defined(ARM_NN_USE_DSP)
#error "DSP"
#endif
"""
    for name, (flags, _) in sorted(CASES.items()):
        if not _accepts(flags):
            continue
        cmd = [GCC, *flags, "-E", f"-I{ROOT / 'cmsis_nn_kernels' / 'include'}", "-x", "c", "-", "-o", os.devnull]
        proc = subprocess.run(cmd, input=probe, capture_output=True, text=True)
        assert proc.returncode == 0, f"{name}: {proc.stderr}"
