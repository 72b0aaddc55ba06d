"""The quantize kernels' double arguments as floats without soft-float double (runtime_c/kernels/portable/util/
mx_f64_f32.c): on a core without a double-precision FPU (Cortex-M33, -M4) (float)(1.0 / scale) linked libgcc's
double multiply-divide and compare objects, ~1.5 KB. The integer versions, built here with the host compiler (and
UBSan/ASan), equal the host FPU's casts bit for bit over random doubles of every exponent and over the inputs
whose results lie at or next to a rounding tie (double rounding included: the reciprocal rounds to double, then
to float); the bit tests equal the comparisons they replace, the reciprocal's range threshold included. The
kernels themselves are held to torch by the int8 tests, on the host (which runs the integer code) and on M33/M4
firmware under QEMU; the size figure is `make bench`'s flash table."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UTIL = ROOT / "runtime_c" / "kernels" / "portable" / "util"

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a host C compiler (cc)")


@pytest.mark.parametrize(
    "flags", [["-O2"], ["-O1", "-fsanitize=undefined,address", "-fno-sanitize-recover=all"]], ids=["O2", "sanitized"]
)
def test_integer_conversions_equal_the_fpu(tmp_path, flags):
    exe = tmp_path / "f64_f32_check"
    sources = [str(ROOT / "tests" / "support" / "f64_f32_check.c"), str(UTIL / "mx_f64_f32.c")]
    cmd = ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", *flags, f"-I{UTIL}", *sources, "-lm", "-o", str(exe)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    out = subprocess.run([str(exe), "300000"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    words = out.stdout.split()
    assert words[:2] == ["mismatches", "0"] and int(words[3]) > 5_000_000, out.stdout
