"""Build the C runtime for a host (x86_64, or aarch64 run through qemu-aarch64) into the `mx_run` tool
(mcu_export.runners.host runs programs with it).

Builds are cached by a hash of every runtime source, the rendered kernel table, the target and the
options; a build happens in a private temporary folder that is renamed into place only when complete,
so concurrent or interrupted builds never leave a half-built runner behind.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from mcu_export.assets import asset_dir
from mcu_export.errors import ToolchainError, UsageError

TARGETS = {
    # target: (C compiler, toolchain file in runtime_c/cmake or None, command prefix to run a binary)
    "x86_64": ("cc", None, ()),
    "aarch64": ("aarch64-linux-gnu-gcc", "aarch64-linux-gnu.cmake", ("qemu-aarch64",)),
}
_INSTALL_HINT = {
    "cmake": "cmake (Debian: apt-get install cmake)",
    "ninja": "ninja (Debian: apt-get install ninja-build)",
    "cc": "a C compiler (Debian: apt-get install gcc)",
    "aarch64-linux-gnu-gcc": "the AArch64 cross compiler (Debian: apt-get install gcc-aarch64-linux-gnu "
    "libc6-dev-arm64-cross)",
    "qemu-aarch64": "qemu-aarch64 (Debian: apt-get install qemu-user)",
    "clang-16": "clang-16 and libFuzzer (Debian: apt-get install clang-16 libclang-rt-16-dev)",
}
_SOURCE_SUFFIXES = {".c", ".h", ".def", ".txt", ".cmake"}


@dataclass(frozen=True)
class LinkedBackend:
    """A delegate backend a C build links: its BackendDelegate id, its `mx_backend` symbol, and its
    state_bytes (the same on every target, see runtime_c/include/mx/backend.h), which the metadata pool holds."""

    id: str
    symbol: str
    state_bytes: int


# The backends mx_run links (runtime_c/host/, runtime_c/backends/); state_bytes is sizeof(test_state) in
# mx_test_delegate.c and MX_ETHOSU_STATE_BYTES in backends/ethosu/ethosu_backend.h, held to them by
# tests/test_runtime_delegate.py and tests/test_runtime_ethosu.py. mx_run runs EthosUBackend's command streams
# on our simulator (fvp/ethosu_sim/).
TEST_DELEGATE = LinkedBackend("MxTestDelegate", "mx_test_delegate_backend", 12)
ETHOSU = LinkedBackend("EthosUBackend", "mx_ethosu_backend", 48)
HOST_BACKENDS = (TEST_DELEGATE, ETHOSU)


def check_target(target: str) -> None:
    if target not in TARGETS:
        raise UsageError(f"unknown host target '{target}' (choose from: {', '.join(TARGETS)})")


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise ToolchainError(f"'{name}' not found: install {_INSTALL_HINT.get(name, name)}")
    return path


def cache_root() -> Path:
    env = os.environ.get("MCU_EXPORT_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "mcu-export"


def default_ops() -> list:
    """Every op of the op table whose kernel source exists (so builds work while kernels are written):
    the portable kernels and the int8 cortex_m ones (runtime_c/kernels/<library>/)."""
    from mcu_export.ops.table import ALL_OPS

    kernels = asset_dir("runtime_c") / "kernels"
    return [op for op in ALL_OPS if (kernels / op.library / f"{op.kernel}.c").is_file()]


def render_kernel_table(ops: Sequence, backends: Sequence[LinkedBackend] = (), variants: Optional[Dict] = None) -> str:
    """C source of `mx_kernel_table[]` for `ops` (op-table entries): each kernel, its check and the argument
    kinds of its schema, which the loader checks every call against; the loader fusions those kernels need;
    and `mx_backend_table[]` for `backends` (without backends the runtime's delegate half is left unlinked).
    `variants` (mcu_export.firmware.kernel_variants): op -> the op-table entry whose kernel runs it instead."""
    from mcu_export.ops.c_args import arg_kinds, build_ranges, c_bounds, first_out
    from mcu_export.ops.cost import cost_rule
    from mcu_export.ops.overlap import overlap_rule
    from mcu_export.templates import render

    ops = list(ops)
    ranges = build_ranges(ops)
    rows = [
        dict(
            name=op.name,
            overload=op.overload,
            kernel=(variants or {}).get(op.qualified, op).kernel,
            sig=f"{op.kernel}_sig",
            kinds=arg_kinds(op, ranges),
            first_out=first_out(op),
            cost=cost_rule(op),
            fused_by=op.fused_by,
            overlap=getattr(overlap_rule(op), "c_function", ""),
        )
        for op in ops
    ]
    bounds = [dict(name=cls, lo=c_bounds(cls)[0], hi=c_bounds(cls)[1]) for cls in ranges]
    return render("kernel_table.c.j2", ops=rows, bounds=bounds, backends=list(backends))


def _sources_digest(*roots: Path) -> "hashlib._Hash":
    h = hashlib.sha256()
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in _SOURCE_SUFFIXES):
            h.update(f"{root.name}/{path.relative_to(root)}".encode())
            h.update(b"\0")
            h.update(path.read_bytes())
            h.update(b"\0")
    return h


def _first_error_line(output: str) -> str:
    """The compiler's or linker's first error (not ninja's progress lines nor collect2's summary)."""
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    wanted = re.compile(r"(fatal )?error:|undefined reference|CMake Error", re.IGNORECASE)
    for i, line in enumerate(lines):
        if line.startswith("collect2"):
            return lines[i - 1] if i else line  # the linker's own message precedes collect2's summary
        if wanted.search(line) and not line.startswith(("[", "FAILED:", "ninja: build stopped")):
            return line
    return lines[-1] if lines else "no output"


def _run_build_step(cmd: List[str], what: str) -> None:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise ToolchainError(f"host runtime {what} failed: {_first_error_line(proc.stdout)}")


def build_host_runner(
    target: str = "x86_64",
    ops=None,
    sanitize: bool = False,
    backends: Sequence[LinkedBackend] = HOST_BACKENDS,
    npu_check: bool = False,
) -> Path:
    """Path of an `mx_run` built for `target` with a kernel table for `ops` and `backends` (of those mx_run
    links: HOST_BACKENDS or none); built once per configuration. `npu_check` (tests only): the NPU reports the
    job the driver programmed and writes a known pattern instead of simulating (runtime_c/host/mx_run_npu.h)."""
    return _build_tool("mx_run", target, ops, sanitize, backends, npu_check)


def build_serial_device(ops=None, sanitize: bool = False) -> Path:
    """Path of `mx_serial_device` (runtime_c/host/mx_serial_device.c): the serial protocol's device side on
    this host with the kernels of `ops` (default: all) and no delegate backends, as a CPU-only board has."""
    return _build_tool("mx_serial_device", "x86_64", ops, sanitize, (), False)


def build_fuzzer(ops=None) -> Path:
    """Path of `mx_fuzz` (runtime_c/fuzz/): the libFuzzer target of the runtime with the kernels of `ops`
    (default: every kernel of the op table) and the test delegate, built by clang-16 with coverage, ASan and
    UBSan (-fno-sanitize-recover=all)."""
    return _build_tool("mx_fuzz", "x86_64", ops, True, (TEST_DELEGATE,), False, fuzz=True)


def _build_tool(
    tool: str,
    target: str,
    ops,
    sanitize: bool,
    backends: Sequence[LinkedBackend],
    npu_check: bool,
    fuzz: bool = False,
) -> Path:
    check_target(target)
    compiler, toolchain, _ = TARGETS[target]
    if fuzz:  # libFuzzer and its coverage instrumentation are clang's
        compiler = "clang-16"
    if sanitize and target != "x86_64":
        raise UsageError("sanitizer builds are host-only (target x86_64)")
    ops = default_ops() if ops is None else list(ops)
    table = render_kernel_table(ops, backends)
    runtime = asset_dir("runtime_c")
    cmsis_nn = asset_dir("cmsis_nn_kernels")
    driver = asset_dir("boards") / "ethosu"
    simulator = asset_dir("fvp") / "ethosu_sim"

    digest = _sources_digest(runtime, cmsis_nn, driver, simulator)
    for part in (table, target, f"sanitize={sanitize}", "layout=1", f"npu_check={npu_check}", tool):
        digest.update(part.encode() + b"\0")
    host_root = cache_root() / "host"
    flavour = ("-san" if sanitize else "") + ("-npucheck" if npu_check else "")
    prefix = "" if tool == "mx_run" else f"{tool}-"  # mx_run keeps the folder names it always had
    final = host_root / f"{prefix}{target}{flavour}-{digest.hexdigest()[:20]}"
    runner = final / tool
    if runner.is_file():
        return runner

    cmake = require_tool("cmake")
    ninja = require_tool("ninja")
    require_tool(compiler)
    host_root.mkdir(parents=True, exist_ok=True)
    print(
        f"mcu-export: building {tool} for {target} ({len(ops)} kernels{', sanitizers' if sanitize else ''})",
        file=sys.stderr,
    )
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=host_root))
    try:
        (tmp / "kernel_table.c").write_text(table)
        configure = [
            cmake,
            "-G",
            "Ninja",
            f"-DCMAKE_MAKE_PROGRAM={ninja}",
            "-S",
            str(runtime),
            "-B",
            str(tmp / "build"),
            f"-DMX_KERNEL_TABLE_SOURCE={tmp / 'kernel_table.c'}",
            f"-DCMAKE_BUILD_TYPE={'RelWithDebInfo' if sanitize else 'Release'}",
            f"-DMX_SANITIZE={'ON' if sanitize and not fuzz else 'OFF'}",
            f"-DMX_FUZZ={'ON' if fuzz else 'OFF'}",
            f"-DMX_CMSIS_NN_DIR={cmsis_nn}",
            f"-DMX_ETHOSU_DRIVER_DIR={driver}",
            f"-DMX_ETHOSU_SIM_DIR={simulator}",
            f"-DMX_NPU_CHECK={'ON' if npu_check else 'OFF'}",
        ]
        if toolchain:
            configure.append(f"-DCMAKE_TOOLCHAIN_FILE={runtime / 'cmake' / toolchain}")
        else:
            configure.append(f"-DCMAKE_C_COMPILER={shutil.which(compiler)}")
        _run_build_step(configure, "configure")
        _run_build_step([cmake, "--build", str(tmp / "build"), "--target", tool], "build")
        (tmp / "out").mkdir()
        shutil.copy2(tmp / "build" / tool, tmp / "out" / tool)
        try:
            os.rename(tmp / "out", final)
        except OSError:
            if not runner.is_file():  # another process finished first: use its runner; else a real error
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return runner
