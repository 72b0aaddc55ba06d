"""Every kernel source compiles warning-free at every optimisation level a user may pick, for every Cortex-M the
boards name: each .c of cmsis_nn_kernels/ and runtime_c/kernels/ (portable, cortex_m and their util/), with the
firmware's warning flags (-Wall -Wextra -Werror), at -Os (the firmware's own), -O2, -O3 and -Ofast, with each CPU's
flags from boards/*.toml and its boards' compiler (arm-none-eabi-gcc; clang-16 for the Cortex-M85, which GCC 12
does not know). -O3 is where GCC unrolls, inlines and vectorises most, so it is where internal compiler errors and
the flow-sensitive warnings (-Wstringop-overflow, -Wmaybe-uninitialized) show up.

Every level runs for the Cortex-M55 (GCC's MVE paths, where GCC 12.2 once crashed on arm_softmax_s8.c at -O3);
the other CPUs build at -Os and -O3, the two ends of what the optimiser does: -O2 is -O3 less its unrolling and
vectorising, and -Ofast is -O3 with fast-math, which changes only the float kernels' code. The 16-cell matrix
took ~500 s of a 2-core CI run for little more; `MCU_EXPORT_KERNEL_LEVELS=all` runs it whole. Cortex-M55 at -O3
runs in the fast tier."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, NamedTuple, Sequence, Tuple

import pytest

from mcu_export.firmware.build import NEWLIB_ROOT

ROOT = Path(__file__).resolve().parents[1]
GCC = "arm-none-eabi-gcc"
LEVELS = ("-Os", "-O2", "-O3", "-Ofast")
FAST_CPU, FAST_LEVEL = "cortex-m55", "-O3"
CPUS = ("cortex-m4", "cortex-m33", "cortex-m55", "cortex-m85")
ENDS = ("-Os", "-O3")  # every CPU but FAST_CPU, unless MCU_EXPORT_KERNEL_LEVELS=all


def levels_for(cpu: str) -> Tuple[str, ...]:
    if cpu == FAST_CPU or os.environ.get("MCU_EXPORT_KERNEL_LEVELS") == "all":
        return LEVELS
    return ENDS


# The firmware's include dirs (mcu_export/firmware/model_project.py: runtime/include, the portable kernels and
# the cortex_m util/, cmsis_nn/include) at their places in this repository; no kernel includes model/.
INCLUDE_DIRS = (
    "runtime_c/include",
    "runtime_c/kernels/portable",
    "runtime_c/kernels/cortex_m/util",
    "cmsis_nn_kernels/include",
)
SOURCE_DIRS = (
    "cmsis_nn_kernels",
    "runtime_c/kernels/portable",
    "runtime_c/kernels/portable/util",
    "runtime_c/kernels/cortex_m",
    "runtime_c/kernels/cortex_m/util",
)
# As codegen/firmware/CMakeLists.txt.j2 compiles the firmware, less -Os and -g.
COMMON_FLAGS = ("-std=c11", "-ffreestanding", "-ffunction-sections", "-fdata-sections", "-Wall", "-Wextra", "-Werror")


class Cpu(NamedTuple):
    compiler: Tuple[str, ...]  # the command before the board's cflags
    cflags: Tuple[str, ...]


@lru_cache(maxsize=None)
def cpus() -> Dict[str, Cpu]:
    """-mcpu value → how the first board (by file name) with that CPU compiles: arm-none-eabi-gcc, or for a
    clang board (GCC 12 has no Cortex-M85) clang-16 with newlib's headers, as mcu_export/firmware/build.py
    sets it up; then the board's [compiler] cflags."""
    found: Dict[str, Cpu] = {}
    for path in sorted((ROOT / "boards").glob("*.toml")):
        compiler = tomllib.loads(path.read_text()).get("compiler", {})
        flags = tuple(compiler.get("cflags", ()))
        cpu = next((f.split("=", 1)[1] for f in flags if f.startswith("-mcpu=")), None)
        if cpu is None or cpu in found:
            continue
        if compiler.get("kind", "gcc") == "clang":
            command: Tuple[str, ...] = ("clang-16", "--target=arm-none-eabi", "-isystem", str(NEWLIB_ROOT / "include"))
        else:
            command = (GCC,)
        found[cpu] = Cpu(command, flags)
    return found


def sources() -> List[Path]:
    return [p for d in SOURCE_DIRS for p in sorted((ROOT / d).glob("*.c"))]


def _first_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    for marker in ("internal compiler error", "error:"):
        hit = next((line for line in lines if marker in line), None)
        if hit is not None:
            return hit.strip()
    return lines[0].strip() if lines else "(no message)"


def _compile(src: Path, cpu: str, level: str) -> str:
    """'' when `src` compiles, else 'file [cpu level]: first error line'."""
    how = cpus()[cpu]
    includes = [f"-I{ROOT / d}" for d in INCLUDE_DIRS]
    cmd = [*how.compiler, *how.cflags, level, *COMMON_FLAGS, *includes, "-c", str(src), "-o", os.devnull]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode == 0:
        return ""
    return f"{src.relative_to(ROOT)} [{cpu} {level}]: {_first_error(proc.stderr)}"


def assert_kernels_build(cpu: str, levels: Sequence[str]) -> None:
    """Compile every source for `cpu` at each of `levels`, os.cpu_count() at a time; one assertion naming every
    failure."""
    missing = shutil.which(cpus()[cpu].compiler[0]) is None
    if missing:
        pytest.skip(f"needs {cpus()[cpu].compiler[0]} (the {cpu} boards' compiler)")
    jobs = [(src, cpu, level) for level in levels for src in sources()]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        failures = [r for r in pool.map(lambda job: _compile(*job), jobs) if r]
    assert not failures, f"{len(failures)} kernel build failure(s):\n" + "\n".join(failures)


def test_the_boards_name_the_cpus_the_matrix_covers():
    assert set(cpus()) == set(CPUS), "a board with a new CPU: add it to CPUS"
    assert len(sources()) > 100  # the globs found the kernel folders


@pytest.mark.slow
def test_every_kernel_builds_for_cortex_m55_at_O3():
    """The fast case: the ICE's CPU and level (GCC 12.2, arm_softmax_s8.c)."""
    assert_kernels_build(FAST_CPU, [FAST_LEVEL])


@pytest.mark.slow
@pytest.mark.parametrize("cpu", CPUS)
def test_every_kernel_builds_at_every_level(cpu):
    assert_kernels_build(cpu, [level for level in levels_for(cpu) if (cpu, level) != (FAST_CPU, FAST_LEVEL)])
