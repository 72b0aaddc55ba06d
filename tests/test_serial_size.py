"""The serial protocol's device side stays within its budget on a Cortex-M (docs/serial-protocol.md): under
3 KiB of code and read-only data for runtime_c/serial/*.c, and under 1 KiB of RAM for its state."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERIAL = ROOT / "runtime_c" / "serial"
FLAGS = ["-mcpu=cortex-m55", "-mthumb", "-Os", "-std=c11", "-Wall", "-Wextra", "-Werror", "-ffunction-sections",
         "-fdata-sections", f"-I{ROOT / 'runtime_c' / 'include'}", f"-I{SERIAL}"]  # fmt: skip


@pytest.fixture(scope="module")
def gcc():
    if shutil.which("arm-none-eabi-gcc") is None or shutil.which("arm-none-eabi-size") is None:
        pytest.skip("no arm-none-eabi-gcc")
    return "arm-none-eabi-gcc"


def test_code_under_3_kib(gcc, tmp_path):
    objects = []
    for source in sorted(SERIAL.glob("*.c")):
        obj = tmp_path / f"{source.stem}.o"
        subprocess.run([gcc, *FLAGS, "-c", str(source), "-o", str(obj)], check=True)
        objects.append(str(obj))
    out = subprocess.run(["arm-none-eabi-size", "-t", *objects], stdout=subprocess.PIPE, text=True, check=True).stdout
    text, data, bss = (int(x) for x in out.splitlines()[-1].split()[:3])
    assert (data, bss) == (0, 0)  # no globals: everything is in the caller's mx_serial
    assert text < 3 * 1024, f"{text} bytes"


def test_state_under_1_kib(gcc, tmp_path):
    source = tmp_path / "size.c"
    source.write_text('#include "mx_serial.h"\nconst unsigned mx_serial_bytes = sizeof(mx_serial);\n')
    asm = subprocess.run([gcc, *FLAGS, "-S", "-o", "-", str(source)], stdout=subprocess.PIPE, text=True, check=True)
    size = int(re.search(r"mx_serial_bytes:\s*\.word\s+(\d+)", asm.stdout).group(1))
    assert size < 1024, f"{size} bytes"
