"""Run firmware on QEMU (qemu-system-arm 7.2): command line from the board file, UART on stdout,
exit code through semihosting, a hard timeout, and optional instruction counts from our plugin."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, Union

from mcu_export.boards import Board, load_firmware_board
from mcu_export.errors import ToolchainError, UsageError
from mcu_export.firmware import icount as icount_mod
from mcu_export.firmware.elf import Elf, symbolizer
from mcu_export.firmware.results import RunResult, check, run_process

if TYPE_CHECKING:
    from mcu_export.runners.npu_seam import Executor, NpuSeamServer

QEMU = "qemu-system-arm"


def qemu_command(
    board: Board,
    elf: Union[str, Path],
    *,
    icount: bool = True,
    plugin: Optional[Path] = None,
    plugin_log: Optional[Path] = None,
    serial: str = "stdio",
) -> List[str]:
    """serial: QEMU's -serial backend for the board's UART (stdio: the run's output; serving firmware gets
    a socket or a pty, mcu_export.firmware.sim)."""
    assert board.qemu is not None, "run_qemu checks this first"
    cmd = [
        QEMU,
        "-M",
        board.qemu.machine,
        "-nographic",
        "-monitor",
        "none",
        "-serial",
        serial,
        "-semihosting-config",
        "enable=on,target=native",
    ]
    if icount:
        cmd += ["-icount", "shift=0"]  # one instruction = 1 ns of virtual time: deterministic SysTick
    if plugin is not None:
        args = icount_mod.plugin_args(elf)
        cmd += [
            "-plugin",
            ",".join([str(plugin)] + [f"{k}={v}" for k, v in args.items()]),
            "-d",
            "plugin",
            "-D",
            str(plugin_log),
        ]
    return cmd + [*board.qemu.extra_args, "-kernel", str(Path(elf).resolve())]


def run_qemu(
    board: Union[Board, str],
    elf: Union[str, Path],
    *,
    timeout: float = 10.0,
    semihosting_dir: Optional[Union[str, Path]] = None,
    icount: bool = True,
    plugin: Union[bool, Path, None] = None,
    check_errors: bool = True,
    npu: Union[None, bool, "Executor"] = None,
) -> RunResult:
    """Run elf on the board's QEMU machine. Semihosting file names are relative to semihosting_dir.
    plugin=True builds and loads the icount plugin (RunResult.instructions); a Path loads that .so.
    npu: the host side of the NPU seam for firmware that runs EthosUBackend delegates (QEMU has no NPU, so the
    firmware hands each job to the host: boards/ethosu/npu_platform.c): None serves it, with our simulator
    (mcu_export.ethosu.simulator), when the ELF links the delegate; an executor (npu_seam.Executor) serves it with
    that; False never. What the seam recorded goes to RunResult.npu_errors / npu_jobs.
    A timeout raises FirmwareTimeout, a hard fault FirmwareFault (unless check_errors=False)."""
    board = load_firmware_board(board)
    elf = Path(elf)
    if board.qemu is None:
        raise UsageError(
            f"board '{board.name}' has no QEMU machine (run it with --sim fvp)"
            if board.fvp
            else f"board '{board.name}' has no QEMU machine and no simulator"
        )
    if shutil.which(QEMU) is None:
        raise ToolchainError(f"{QEMU} not found (apt-get install qemu-system-arm)")
    if not elf.is_file():
        raise UsageError(f"firmware file {elf} does not exist")
    plugin_path = icount_mod.build_plugin() if plugin is True else (Path(plugin) if plugin else None)
    if npu is None:
        npu = runs_npu_jobs(elf)
    with tempfile.TemporaryDirectory(prefix="mx-qemu-") as tmp:
        log = Path(tmp) / "plugin.log"
        cmd = qemu_command(board, elf, icount=icount, plugin=plugin_path, plugin_log=log)
        cwd = Path(semihosting_dir) if semihosting_dir is not None else Path(tmp)
        seam = _seam(cwd, npu) if npu is not False else None
        try:
            code, out, timed_out, seconds = run_process(cmd, timeout=timeout, cwd=cwd)
        finally:
            if seam is not None:
                seam.stop()
        counts = None
        if plugin_path is not None and not timed_out:
            counts = icount_mod.parse_icount(log.read_text() if log.exists() else "")
    result = RunResult(
        exit_code=code,
        uart_text=out,
        timed_out=timed_out,
        seconds=seconds,
        command=tuple(cmd),
        instructions=counts,
        npu_errors=tuple(seam.errors) if seam is not None else (),
        npu_jobs=len(seam.jobs) if seam is not None else 0,
    )
    if check_errors:
        check(result, where=f"{board.name} (qemu {board.qemu.machine})", timeout=timeout, symbolize=symbolizer(elf))
    return result


def runs_npu_jobs(elf: Union[str, Path]) -> bool:
    """Whether `elf` is model firmware that runs EthosUBackend delegates (and so may hand NPU jobs to the host)."""
    return "mx_ethosu_backend" in Elf(elf).symbols()


def _seam(directory: Path, npu: Union[bool, "Executor"]) -> "NpuSeamServer":
    """The seam's host side in `directory`, started: our simulator (npu True) or the given executor."""
    from mcu_export.ethosu.simulator import seam_executor, simulator
    from mcu_export.runners.npu_seam import NpuSeamServer

    if isinstance(npu, bool):
        sim = simulator()  # built (or found in the cache) before QEMU starts: its time is not the run's
        server = NpuSeamServer(directory, seam_executor(sim=sim), strict=False)
        server.execute = seam_executor(server, sim)  # each job as the NPU the firmware reports (server.current)
    else:
        server = NpuSeamServer(directory, npu, strict=False)
    return server.start()
