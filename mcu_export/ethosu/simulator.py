"""Our Ethos-U55/U65/U85 command-stream simulator (fvp/ethosu_sim/, `mx_npu_execute`) from Python: its C files built
with the host cc into a shared library (once per version of the sources, cached as mcu_export.host_runtime caches
mx_run), called through ctypes.

`execute(words, regions)` runs one job as the NPU would: the command words (bytes, or a sequence of 32-bit words)
against the eight regions (bytearrays, edited in place; an empty one is unused), and returns (STATUS, error text):
STATUS the NPU's final STATUS register (npu_seam.OK when the stream ran to its end; CMD_PARSE_ERROR when the
simulator refused a command, the text saying which and why). `seam_executor()` is the executor the QEMU runner gives
the NPU seam (mcu_export/runners/npu_seam.py): a refused job raises SimulatorError, so that its text reaches the
run's error line.

The library is every fvp/ethosu_sim/*.c (the Ethos-U85's npu85_*.c with the rest: `sources` globs them, as
runtime_c/CMakeLists.txt does), keyed in the cache by those files, the .h and .def lists and the flags.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from mcu_export.assets import asset_dir
from mcu_export.errors import RuntimeFailure, ToolchainError

REGIONS = 8
CC = "cc"
CFLAGS = ("-std=c11", "-O2", "-fPIC", "-Wall", "-Wextra", "-Werror")
LIBRARY = "libmx_npu_sim.so"
ENTRY_POINTS = ("mx_npu_execute", "mx_npu_execute_config")
# STATUS words (boards/ethosu/ethosu_regs.h; the same as mcu_export.runners.npu_seam's).
IRQ_RAISED = 1 << 1
CMD_PARSE_ERROR = 1 << 4 | IRQ_RAISED
OK = 1 << 5 | IRQ_RAISED

Words = Union[bytes, bytearray, memoryview, Sequence[int]]


class SimulatorError(RuntimeFailure):
    """The simulator refused a job (an unsupported or malformed command, an access outside a region) or is not
    built; the message is its one-line reason."""


class ErrorStruct(ctypes.Structure):  # mx_npu_error (npu_commands.h); public for the tests' bindings
    _fields_ = [
        ("status", ctypes.c_int32),
        ("opcode", ctypes.c_uint32),
        ("word_index", ctypes.c_size_t),
        ("word", ctypes.c_uint32),
        ("message", ctypes.c_char * 200),
    ]


class RegionStruct(ctypes.Structure):  # mx_npu_region (npu_exec.h)
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]


def sources(sim_dir: Optional[Path] = None) -> List[Path]:
    """The C files the library is built from: fvp/ethosu_sim/*.c."""
    sim = Path(sim_dir) if sim_dir is not None else asset_dir("fvp") / "ethosu_sim"
    return sorted(sim.glob("*.c"))


def build_library(
    sim_dir: Optional[Path] = None, extra_flags: Sequence[str] = (), entry_points: Sequence[str] = ENTRY_POINTS
) -> Path:
    """Path of the shared library of the simulator's sources in `sim_dir` (default fvp/ethosu_sim/), built once per
    version of those sources, flags and entry points in the cache (host_runtime.cache_root()/npu_sim/), in a private
    folder renamed into place when complete. `extra_flags` go to both the compiler and the linker (a sanitizer
    build needs them in both); `entry_points` are the functions kept, with whatever they call."""
    from mcu_export.host_runtime import cache_root

    sim = Path(sim_dir) if sim_dir is not None else asset_dir("fvp") / "ethosu_sim"
    files = sources(sim)
    headers = sorted(p for p in sim.iterdir() if p.suffix in (".h", ".def"))
    digest = hashlib.sha256()
    for path in [*files, *headers]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(" ".join((*CFLAGS, *extra_flags, *entry_points, "archive")).encode())
    root = cache_root() / "npu_sim"
    final = root / digest.hexdigest()[:20]
    library = final / LIBRARY
    if library.is_file():
        return library
    cc = shutil.which(CC)
    if cc is None or shutil.which("ar") is None:
        raise ToolchainError("'cc' or 'ar' not found: the NPU simulator needs them (Debian: apt-get install gcc)")
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    try:
        (tmp / "out").mkdir()
        # As runtime_c/CMakeLists.txt builds it for mx_run: every file into an archive, then only what the entry
        # points need.
        entry = [f"-Wl,--undefined={name}" for name in entry_points]
        steps = [
            [cc, *CFLAGS, *extra_flags, f"-I{sim}", "-c", *map(str, files)],
            ["ar", "rcs", "libsim.a", *(f"{f.stem}.o" for f in files)],
            [cc, "-shared", *extra_flags, *entry, "libsim.a", "-o", str(tmp / "out" / LIBRARY)],
        ]
        for cmd in steps:
            proc = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if proc.returncode != 0:
                lines = proc.stdout.splitlines()
                first = next((line for line in lines if "error" in line), proc.stdout.strip()[-300:])
                raise ToolchainError(f"building the NPU simulator failed: {first}")
        try:
            os.rename(tmp / "out", final)
        except OSError:
            if not library.is_file():  # another process finished first: use its library; else a real error
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return library


class Simulator:
    """The simulator's library loaded: `execute` runs jobs (one at a time: the library keeps no state, but ctypes
    calls release the GIL, so a lock keeps one caller's regions from meeting another's)."""

    def __init__(self, sim_dir: Optional[Path] = None):
        self.library = build_library(sim_dir)
        lib = self._lib = ctypes.CDLL(str(self.library))
        args: List[Any] = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(RegionStruct)]
        lib.mx_npu_execute.argtypes = [*args, ctypes.POINTER(ErrorStruct)]
        lib.mx_npu_execute.restype = ctypes.c_int
        self._with_config = lib.mx_npu_execute_config
        self._with_config.argtypes = [*args, ctypes.c_uint32, ctypes.POINTER(ErrorStruct)]
        self._with_config.restype = ctypes.c_int
        self._lock = threading.Lock()

    def execute(self, words: Words, regions: Sequence[bytearray], config: int = 0) -> Tuple[int, str]:
        """Runs the command words against `regions` (edited in place; up to eight, an empty one unused) as the NPU
        CONFIG `config` describes (0: a U55/U65 of 64 MACs or more; the 32-MAC Ethos-U55 needs its own, an Ethos-U85,
        product 2 in bits 28-31, too). Returns
        (STATUS, "") when the stream ran to its end, else (CMD_PARSE_ERROR STATUS, the simulator's reason)."""
        if len(regions) > REGIONS:
            raise ValueError(f"{len(regions)} regions; the NPU has {REGIONS}")
        if isinstance(words, (bytes, bytearray, memoryview)):
            data = bytes(words)
            if len(data) % 4:
                raise ValueError(f"command words of {len(data)} bytes: not whole 32-bit words")
            count = len(data) // 4
            stream = (ctypes.c_uint32 * max(count, 1)).from_buffer_copy(data.ljust(4, b"\0"))
        else:
            count = len(words)
            stream = (ctypes.c_uint32 * max(count, 1))(*[w & 0xFFFFFFFF for w in words])
        table = (RegionStruct * REGIONS)()
        keep = []
        for n, region in enumerate(regions):
            if len(region):
                buffer = (ctypes.c_char * len(region)).from_buffer(region)
                keep.append(buffer)
                table[n].data, table[n].size = ctypes.addressof(buffer), len(region)
        err = ErrorStruct()
        with self._lock:
            if config:
                rc = self._with_config(stream, count, table, config, ctypes.byref(err))
            else:
                rc = self._lib.mx_npu_execute(stream, count, table, ctypes.byref(err))
        del keep
        if rc == 0:
            return OK, ""
        return CMD_PARSE_ERROR, err.message.decode(errors="replace") or f"mx_npu_execute returned {rc}"


_simulators: Dict[Optional[Path], Simulator] = {}
_simulators_lock = threading.Lock()


def simulator(sim_dir: Optional[Path] = None) -> Simulator:
    """The simulator of `sim_dir` (default fvp/ethosu_sim/), built and loaded once per process."""
    key = Path(sim_dir).resolve() if sim_dir is not None else None
    with _simulators_lock:
        if key not in _simulators:
            _simulators[key] = Simulator(key)
        return _simulators[key]


def execute(words: Words, regions: Sequence[bytearray], config: int = 0) -> Tuple[int, str]:
    """Simulator().execute with fvp/ethosu_sim/'s simulator: (STATUS, error text) of one job."""
    return simulator().execute(words, regions, config)


def seam_executor(server=None, sim: Optional[Simulator] = None) -> Callable[[bytes, List[bytearray]], int]:
    """The NPU seam's executor (npu_seam.Executor): runs each job on the simulator as the NPU the firmware's register
    file reports (`server.current.npu_config`, when a server is given) and returns its STATUS; a job the simulator
    refuses raises SimulatorError with its reason, which the seam records and the run's error line carries."""
    chosen = sim

    def run(words: bytes, regions: List[bytearray]) -> int:
        nonlocal chosen
        if chosen is None:
            chosen = simulator()
        job = getattr(server, "current", None)
        status, error = chosen.execute(words, regions, job.npu_config if job is not None else 0)
        if error:
            raise SimulatorError(error)
        return status

    return run
