"""Run firmware on an Arm FVP (Corstone-300/320): the documented command line from the board file.
FVPs cannot be downloaded here; runs need the binary on PATH and say so when it is missing."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import List, Optional, Union

from mcu_export.boards import Board, load_firmware_board
from mcu_export.errors import ToolchainError, UsageError
from mcu_export.firmware.results import RunResult, check, run_process


def fvp_command(
    board: Board, elf: Union[str, Path], *, timeout: float = 60.0, semihosting_dir: Optional[Union[str, Path]] = None
) -> List[str]:
    if board.fvp is None:
        raise UsageError(f"board '{board.name}' has no FVP")
    cmd = [board.fvp.binary]
    for key, value in board.fvp.params:
        cmd += ["-C", f"{key}={value}"]
    if semihosting_dir is not None and board.fvp.semihosting_cwd_param:
        cmd += ["-C", f"{board.fvp.semihosting_cwd_param}={Path(semihosting_dir).resolve()}"]
    # --timelimit is the FVP's own wall-clock guard; run_fvp also kills it from outside.
    return cmd + ["-a", str(Path(elf).resolve()), "--timelimit", f"{max(1, int(timeout))}"]


def fvp_available(board: Board) -> bool:
    return board.fvp is not None and shutil.which(board.fvp.binary) is not None


def run_fvp(
    board: Union[Board, str],
    elf: Union[str, Path],
    *,
    timeout: float = 60.0,
    semihosting_dir: Optional[Union[str, Path]] = None,
    check_errors: bool = True,
) -> RunResult:
    board = load_firmware_board(board)
    cmd = fvp_command(board, elf, timeout=timeout, semihosting_dir=semihosting_dir)
    if shutil.which(cmd[0]) is None:
        raise ToolchainError(
            f"{cmd[0]} is not on PATH: install Arm's {cmd[0]} (developer.arm.com, Arm "
            f"Ecosystem FVPs) and add its folder to PATH"
        )
    cwd = Path(semihosting_dir) if semihosting_dir is not None else None
    code, out, timed_out, seconds = run_process(cmd, timeout=timeout + 5, cwd=cwd)
    result = RunResult(exit_code=code, uart_text=out, timed_out=timed_out, seconds=seconds, command=tuple(cmd))
    if check_errors:
        check(result, where=f"{board.name} ({cmd[0]})", timeout=timeout)
    return result
