"""What a simulator run returns, the errors it can end in, and the process handling both runners share."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

from mcu_export.errors import RuntimeFailure

HARD_FAULT_EXIT = 253  # MX_EXIT_HARD_FAULT in boards/include/mx_platform.h
_FAULT_LINE = re.compile(r"mx: hard fault((?: [A-Z]+=0x[0-9a-f]+)+)")


class FirmwareTimeout(RuntimeFailure):
    """The firmware did not exit within the time limit; the simulator was killed."""


class FirmwareFault(RuntimeFailure):
    """The firmware took a hard fault; the message carries the fault registers it printed."""

    def __init__(self, message: str, registers: Dict[str, int]):
        super().__init__(message)
        self.registers = registers


@dataclass(frozen=True)
class Region:
    entries: int
    instructions: int


@dataclass(frozen=True)
class Icount:
    total: int
    regions: Dict[int, Region]


@dataclass(frozen=True)
class RunResult:
    exit_code: Optional[int]  # None when the run timed out
    uart_text: str
    timed_out: bool
    seconds: float
    command: Tuple[str, ...]
    instructions: Optional[Icount] = None
    npu_errors: Tuple[str, ...] = ()  # what the NPU seam's host side recorded (firmware/qemu.py)
    npu_jobs: int = 0  # NPU jobs the seam served


def fault_registers(uart_text: str) -> Dict[str, int]:
    match = _FAULT_LINE.search(uart_text)
    if not match:
        return {}
    return {k: int(v, 16) for k, v in (item.split("=") for item in match.group(1).split())}


def run_process(cmd: Sequence[str], *, timeout: float, cwd: Optional[Path]) -> Tuple[Optional[int], str, bool, float]:
    """Run with stdout captured; on timeout kill the whole process group (simulators fork helpers)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        list(cmd),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out.decode(errors="replace"), False, time.monotonic() - start
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out.decode(errors="replace"), True, time.monotonic() - start


def check(result: RunResult, *, where: str, timeout: float, symbolize=None) -> RunResult:
    """Turn a timeout or a hard fault into its error; any other exit code is the caller's to judge."""
    tail = result.uart_text.strip().splitlines()[-1:] or ["(none)"]
    if result.timed_out:
        raise FirmwareTimeout(
            f"firmware on {where} did not exit within {timeout:g} s and was killed (last UART line: {tail[0]!r})"
        )
    if result.exit_code == HARD_FAULT_EXIT:
        regs = fault_registers(result.uart_text)
        if not regs:
            raise FirmwareFault(
                f"firmware on {where} stopped with the hard-fault exit code "
                f"{HARD_FAULT_EXIT} (last UART line: {tail[0]!r})",
                {},
            )
        text = " ".join(f"{k}=0x{v:08x}" for k, v in regs.items())
        place = f" in {symbolize(regs['PC'])}" if symbolize and "PC" in regs and symbolize(regs["PC"]) else ""
        raise FirmwareFault(f"firmware on {where} hit a hard fault{place}: {text}", regs)
    return result
