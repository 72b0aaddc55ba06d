"""Build the C runtime for a host (x86_64, or aarch64 run through qemu-aarch64) and run .pte programs
with it through the `mx_run` tool.

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
from typing import List, Optional, Sequence, Tuple

import jinja2
import numpy as np

from mcu_export import dtypes
from mcu_export.assets import asset_dir
from mcu_export.errors import RuntimeFailure, ToolchainError, UsageError

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
}
_SOURCE_SUFFIXES = {".c", ".h", ".def", ".txt", ".cmake"}
RUN_TIMEOUT_S = 300


@dataclass(frozen=True)
class TensorInfo:
    dtype: int                 # .pte ScalarType code
    shape: Tuple[int, ...]
    dim_order: Tuple[int, ...]

    @property
    def numpy_dtype(self) -> np.dtype:
        return dtypes.numpy_dtype(self.dtype)


@dataclass(frozen=True)
class ProgramInfo:
    method: str
    meta_pool_bytes: int
    arenas: Tuple[int, ...]    # declared size of arena 1, 2, ... (memory_id - 1)
    inputs: Tuple[TensorInfo, ...]
    outputs: Tuple[TensorInfo, ...]


def _check_target(target: str) -> None:
    if target not in TARGETS:
        raise UsageError(f"unknown host target '{target}' (choose from: {', '.join(TARGETS)})")


def _require_tool(name: str) -> str:
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


def render_kernel_table(ops: Sequence) -> str:
    """C source of `mx_kernel_table[]` for `ops` (objects with .name, .overload, .kernel)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(asset_dir("codegen"))),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    return env.get_template("kernel_table.c.j2").render(ops=list(ops))


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
            return lines[i - 1] if i else line   # the linker's own message precedes collect2's summary
        if wanted.search(line) and not line.startswith(("[", "FAILED:", "ninja: build stopped")):
            return line
    return lines[-1] if lines else "no output"


def _run_build_step(cmd: List[str], what: str) -> None:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise ToolchainError(f"host runtime {what} failed: {_first_error_line(proc.stdout)}")


def build_host_runner(target: str = "x86_64", ops=None, sanitize: bool = False) -> Path:
    """Path of an `mx_run` built for `target` with a kernel table for `ops`; built once per configuration."""
    _check_target(target)
    compiler, toolchain, _ = TARGETS[target]
    if sanitize and target != "x86_64":
        raise UsageError("sanitizer builds are host-only (target x86_64)")
    ops = default_ops() if ops is None else list(ops)
    table = render_kernel_table(ops)
    runtime = asset_dir("runtime_c")
    cmsis_nn = asset_dir("cmsis_nn_kernels")

    digest = _sources_digest(runtime, cmsis_nn)
    for part in (table, target, f"sanitize={sanitize}", "layout=1"):
        digest.update(part.encode() + b"\0")
    host_root = cache_root() / "host"
    final = host_root / f"{target}{'-san' if sanitize else ''}-{digest.hexdigest()[:20]}"
    runner = final / "mx_run"
    if runner.is_file():
        return runner

    cmake = _require_tool("cmake")
    ninja = _require_tool("ninja")
    _require_tool(compiler)
    host_root.mkdir(parents=True, exist_ok=True)
    print(f"mcu-export: building the host runtime for {target} ({len(ops)} kernels"
          f"{', sanitizers' if sanitize else ''})", file=sys.stderr)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=host_root))
    try:
        (tmp / "kernel_table.c").write_text(table)
        configure = [cmake, "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}", "-S", str(runtime),
                     "-B", str(tmp / "build"), f"-DMX_KERNEL_TABLE_SOURCE={tmp / 'kernel_table.c'}",
                     f"-DCMAKE_BUILD_TYPE={'RelWithDebInfo' if sanitize else 'Release'}",
                     f"-DMX_SANITIZE={'ON' if sanitize else 'OFF'}", f"-DMX_CMSIS_NN_DIR={cmsis_nn}"]
        if toolchain:
            configure.append(f"-DCMAKE_TOOLCHAIN_FILE={runtime / 'cmake' / toolchain}")
        else:
            configure.append(f"-DCMAKE_C_COMPILER={shutil.which(compiler)}")
        _run_build_step(configure, "configure")
        _run_build_step([cmake, "--build", str(tmp / "build"), "--target", "mx_run"], "build")
        (tmp / "out").mkdir()
        shutil.copy2(tmp / "build" / "mx_run", tmp / "out" / "mx_run")
        try:
            os.rename(tmp / "out", final)
        except OSError:
            if not runner.is_file():   # another process finished first: use its runner; else a real error
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return runner


def runner_command(target: str, runner: Path) -> List[str]:
    """How to start `runner`: directly on the host, through qemu-aarch64 for aarch64 (linked statically)."""
    prefix = TARGETS[target][2]
    if prefix:
        _require_tool(prefix[0])
    return [*prefix, str(runner)]


def _run(cmd: List[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise RuntimeFailure(f"mx_run did not finish within {RUN_TIMEOUT_S} s") from None


def _raise_for(proc: subprocess.CompletedProcess) -> None:
    """mx_run exits 2 on usage errors and 3 on program/runtime errors, each with one `mx_run: error:` line."""
    if proc.returncode == 0:
        return
    lines = [l for l in proc.stderr.splitlines() if l.startswith("mx_run: error:")]
    if proc.returncode == 2 and lines:
        raise UsageError(lines[0])
    if proc.returncode == 3 and lines:
        raise RuntimeFailure(lines[0])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    raise RuntimeFailure(f"mx_run failed with exit status {proc.returncode}: {tail}")


def _parse_tensor(fields: List[str], line: str) -> TensorInfo:
    if len(fields) != 5 or fields[2] == "nontensor":
        raise RuntimeFailure(f"mx_run --info: only tensor inputs/outputs are supported ({line})")
    shape = () if fields[3] == "scalar" else tuple(int(s) for s in fields[3].split("x"))
    order = () if fields[4] == "-" else tuple(int(s) for s in fields[4].split(","))
    return TensorInfo(dtype=int(fields[2]), shape=shape, dim_order=order)


def parse_info(text: str) -> ProgramInfo:
    """Reads mx_run's --info lines (format documented in runtime_c/host/mx_run.c)."""
    method, pool, arenas = "", 0, []
    inputs: List[TensorInfo] = []
    outputs: List[TensorInfo] = []
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "method":
            method = fields[1]
        elif fields[0] == "meta_pool":
            pool = int(fields[1])
        elif fields[0] == "arena":
            arenas.append(int(fields[2]))
        elif fields[0] in ("input", "output"):
            (inputs if fields[0] == "input" else outputs).append(_parse_tensor(fields, line))
    return ProgramInfo(method, pool, tuple(arenas), tuple(inputs), tuple(outputs))


def program_info(pte_path, target: str = "x86_64", method: str = "forward") -> ProgramInfo:
    """Inputs, outputs and memory needs of a method, as the C runtime reads them (no kernels needed)."""
    _check_target(target)
    cmd = runner_command(target, build_host_runner(target))
    proc = _run([*cmd, str(pte_path), "--method", method, "--info"])
    _raise_for(proc)
    return parse_info(proc.stdout)


def _to_memory_order(array: np.ndarray, order: Tuple[int, ...]) -> bytes:
    """Raw bytes in the tensor's dim order (contiguous for the identity order, e.g. NHWC for 0,2,3,1)."""
    if order and list(order) != sorted(order):
        array = np.transpose(array, order)
    return np.ascontiguousarray(array).tobytes()


def _from_memory_order(data: bytes, info: TensorInfo) -> np.ndarray:
    stored_shape = tuple(info.shape[d] for d in info.dim_order) if info.dim_order else info.shape
    array = np.frombuffer(data, dtype=info.numpy_dtype).reshape(stored_shape)
    if info.dim_order and list(info.dim_order) != sorted(info.dim_order):
        array = np.transpose(array, np.argsort(info.dim_order))
    return np.ascontiguousarray(array)


def run_pte(pte_path, inputs: Sequence[np.ndarray], target: str = "x86_64", method: str = "forward",
            runner: Optional[Path] = None) -> List[np.ndarray]:
    """Runs `method` of a .pte with the C runtime and returns its outputs as numpy arrays."""
    _check_target(target)
    runner = runner or build_host_runner(target)
    cmd = runner_command(target, runner)
    proc = _run([*cmd, str(pte_path), "--method", method, "--info"])
    _raise_for(proc)
    info = parse_info(proc.stdout)
    with tempfile.TemporaryDirectory(prefix="mcu-export-mx-run-") as tmp:
        args = [*cmd, str(pte_path), "--method", method]
        for i, array in enumerate(inputs):
            array = np.asarray(array)
            try:
                code = int(dtypes.from_numpy(array.dtype))
            except ValueError as exc:
                raise UsageError(f"input {i}: {exc}") from None
            order = info.inputs[i].dim_order if i < len(info.inputs) else ()
            path = Path(tmp) / f"input{i}.bin"
            path.write_bytes(_to_memory_order(array, order) if array.ndim == len(order) else array.tobytes())
            shape = "x".join(str(s) for s in array.shape) or "scalar"
            args += ["--input", f"{code}:{shape}:{path}"]
        out_paths = [Path(tmp) / f"output{i}.bin" for i in range(len(info.outputs))]
        for path in out_paths:
            args += ["--output", str(path)]
        _raise_for(_run(args))
        return [_from_memory_order(p.read_bytes(), o) for p, o in zip(out_paths, info.outputs)]
