"""Target `host`: the C runtime on this machine through the `mx_run` tool (x86_64, or aarch64 through
qemu-aarch64), built once per configuration by mcu_export.host_runtime."""

from __future__ import annotations

import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

from mcu_export.board_types import HostBoard
from mcu_export.errors import RuntimeFailure, UsageError
from mcu_export.host_runtime import TARGETS, build_host_runner, check_target, require_tool
from mcu_export.runners.base import Runner

if TYPE_CHECKING:  # numpy and the tensor helpers load on first use (runners.targets() lists this module)
    import numpy as np

    from mcu_export.runners.tensors import TensorSpec

RUN_TIMEOUT_S = 300
Feed = Tuple[int, Tuple[int, ...], bytes]  # dtype code, shape, bytes in memory order


@dataclass(frozen=True)
class ProgramInfo:
    method: str
    meta_pool_bytes: int
    arenas: Tuple[int, ...]  # declared size of arena 1, 2, ... (memory_id - 1)
    inputs: Tuple[TensorSpec, ...]
    outputs: Tuple[TensorSpec, ...]
    meta_counts: Tuple[Tuple[str, int], ...] = ()  # (mx_meta_counts field, count) per pool region
    # bytes of the lasting and the load-only metadata, and where the latter goes while loading: "arena" or "pool"
    meta_blocks: Tuple[int, int, str] = (0, 0, "pool")


def runner_command(target: str, runner: Path) -> List[str]:
    """How to start `runner`: directly on the host, through qemu-aarch64 for aarch64 (linked statically)."""
    prefix = TARGETS[target][2]
    if prefix:
        require_tool(prefix[0])
    return [*prefix, str(runner)]


def _run(cmd: List[str], timeout: float = RUN_TIMEOUT_S) -> subprocess.CompletedProcess:
    try:
        # errors="replace": a corrupt program can make mx_run echo undecodable names from it
        return subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise RuntimeFailure(f"mx_run did not finish within {timeout:g} s") from None


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


def _parse_tensor(fields: List[str], line: str) -> TensorSpec:
    from mcu_export.runners.tensors import TensorSpec

    if len(fields) != 5 or fields[2] == "nontensor":
        raise RuntimeFailure(f"mx_run --info: only tensor inputs/outputs are supported ({line})")
    shape = () if fields[3] == "scalar" else tuple(int(s) for s in fields[3].split("x"))
    order = () if fields[4] == "-" else tuple(int(s) for s in fields[4].split(","))
    return TensorSpec(dtype=int(fields[2]), shape=shape, dim_order=order)


def parse_info(text: str) -> ProgramInfo:
    """Reads mx_run's --info lines (format documented in runtime_c/host/mx_run.c)."""
    method, pool, arenas, counts = "", 0, [], {}
    inputs: List[TensorSpec] = []
    outputs: List[TensorSpec] = []
    blocks: Tuple[int, int, str] = (0, 0, "pool")
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
        elif fields[0] == "meta":
            counts[fields[2]] = int(fields[3])
        elif fields[0] == "meta_blocks":
            blocks = (int(fields[1]), int(fields[2]), fields[3])
    return ProgramInfo(method, pool, tuple(arenas), tuple(inputs), tuple(outputs), tuple(counts.items()), blocks)


def _info(cmd: List[str], pte_path, method: str) -> ProgramInfo:
    proc = _run([*cmd, str(pte_path), "--method", method, "--info"])
    _raise_for(proc)
    return parse_info(proc.stdout)


def program_info(pte_path, target: str = "x86_64", method: str = "forward") -> ProgramInfo:
    """Inputs, outputs and memory needs of a method, as the C runtime reads them (no kernels needed)."""
    check_target(target)
    return _info(runner_command(target, build_host_runner(target)), pte_path, method)


def instruction_kernels(
    pte_path, target: str = "x86_64", method: str = "forward", runner: Optional[Path] = None
) -> List[str]:
    """What the C runtime runs for each instruction once loaded: "<name>.<overload>", "fused-away" (folded into
    an earlier instruction by a loader fusion) or "move"."""
    check_target(target)
    proc = _run(
        [*runner_command(target, runner or build_host_runner(target)), str(pte_path), "--method", method, "--kernels"]
    )
    _raise_for(proc)
    return [line.split()[2] for line in proc.stdout.splitlines() if line.startswith("instruction ")]


def mx_run(
    cmd: List[str], pte_path, method: str, feeds: Sequence[Feed], n_outputs: int, timeout: float = RUN_TIMEOUT_S
) -> List[bytes]:
    """One mx_run of `method` on `feeds`; the outputs' bytes in memory order. mx_run checks each feed
    against the program itself, so a mismatch is its one-line UsageError."""
    with tempfile.TemporaryDirectory(prefix="mcu-export-mx-run-") as tmp:
        args = [*cmd, str(pte_path), "--method", method]
        for i, (code, shape, data) in enumerate(feeds):
            path = Path(tmp) / f"input{i}.bin"
            path.write_bytes(data)
            args += ["--input", f"{code}:{'x'.join(str(s) for s in shape) or 'scalar'}:{path}"]
        out_paths = [Path(tmp) / f"output{i}.bin" for i in range(n_outputs)]
        for path in out_paths:
            args += ["--output", str(path)]
        _raise_for(_run(args, timeout))
        return [p.read_bytes() for p in out_paths]


def run_pte(
    pte_path,
    inputs: Sequence[np.ndarray],
    target: str = "x86_64",
    method: str = "forward",
    runner: Optional[Path] = None,
) -> List[np.ndarray]:
    """Runs `method` of a .pte with the C runtime and returns its outputs as numpy arrays. Inputs go to
    mx_run as they are (no check here): the C runtime's own input check is what this exposes."""
    import numpy as np

    from mcu_export import dtypes
    from mcu_export.runners.tensors import outputs_from, to_memory_order

    check_target(target)
    cmd = runner_command(target, runner or build_host_runner(target))
    info = _info(cmd, pte_path, method)
    feeds = []
    for i, array in enumerate(inputs):
        array = np.asarray(array)
        try:
            code = int(dtypes.from_numpy(array.dtype))
        except ValueError as exc:
            raise UsageError(f"input {i}: {exc}") from None
        order = info.inputs[i].dim_order if i < len(info.inputs) else ()
        feeds.append((code, array.shape, to_memory_order(array, order if array.ndim == len(order) else ())))
    return outputs_from(mx_run(cmd, pte_path, method, feeds, len(info.outputs)), info.outputs, "mx_run")


def resolve_program_path(path: Union[str, Path]) -> Path:
    p = Path(path)
    if p.is_dir():
        p = p / "model.pte"
    if not p.is_file():
        raise UsageError(f"program not found: {p}")
    return p


class HostRunner(Runner):
    """Runs a .pte (or an export folder's model.pte) with the board's host target's mx_run."""

    name = "host"
    rank = 0

    def __init__(self, board, **options) -> None:
        super().__init__(board, **options)
        self.pte: Optional[Path] = None
        self.command: Optional[List[str]] = None  # how to start mx_run, once built

    @classmethod
    def serves(cls, board) -> bool:
        return isinstance(board, HostBoard)

    def open(self, program: Path) -> None:
        from mcu_export.pte.reader import read_program_file
        from mcu_export.runners.tensors import program_io

        self.pte = resolve_program_path(program)
        self.inputs, self.outputs = program_io(read_program_file(self.pte))

    def prepare(self) -> None:
        if self.command is None:
            self.command = runner_command(self.board.target, build_host_runner(self.board.target))

    def execute(self, inputs: Sequence[bytes]) -> Tuple[List[bytes], Dict[str, Any]]:
        assert self.command is not None  # run() calls prepare() first
        feeds = [(s.dtype, s.shape, data) for s, data in zip(self.inputs, inputs)]
        start = time.monotonic()
        raw = mx_run(self.command, self.pte, "forward", feeds, len(self.outputs), self.timeout)
        return raw, {"seconds": time.monotonic() - start}
