"""Skip markers for tests that need a toolchain or simulator this machine may lack, each naming what is missing."""

from __future__ import annotations

import shutil

import pytest

NEEDS_ARM_QEMU = pytest.mark.skipif(
    shutil.which("arm-none-eabi-gcc") is None or shutil.which("qemu-system-arm") is None,
    reason="needs gcc-arm-none-eabi and qemu-system-arm",
)
