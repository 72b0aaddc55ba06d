"""The simulator as a stand-in board (`mcu-export sim OUT --board B --serial ENDPOINT`): serving firmware under
QEMU with its UART at a TCP socket or a pty, so that every `mcu-export serial` command talks to it as to a
board on USB. The semihosting working directory is the run folder, where the firmware keeps its model slots
(slots.bin, boards/cortex_m/slot_store_semihost.c): they survive a restart, as flash does.

QEMU runs with `-icount shift=0` as for model firmware: SysTick then counts guest instructions, and the
per-op profile is deterministic.

Serving firmware that links the EthosUBackend delegate (a board with an NPU: corstone-300, corstone-320) hands
its NPU jobs to the host, as model firmware does under QEMU, which has no NPU: the run folder then also holds the
NPU seam's pipes, served by our simulator (mcu_export.ethosu.simulator) for the life of each QEMU process
(mcu_export/runners/npu_seam.py; one server per process, since the firmware opens the channel once)."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, Union

from mcu_export.boards import Board, load_firmware_board
from mcu_export.errors import ToolchainError, UsageError
from mcu_export.firmware.qemu import QEMU, _seam, qemu_command, runs_npu_jobs

if TYPE_CHECKING:
    from mcu_export.runners.npu_seam import NpuSeamServer

_SOCKET = re.compile(r"^socket://(?P<host>[^:/]+):(?P<port>\d+)/?$")
# what QEMU 7.2 prints on stdout for `-serial pty`
_PTY = re.compile(r"char device redirected to (?P<path>\S+) \(label serial0\)")
LOG = "qemu.log"


def serial_backend(endpoint: str) -> str:
    """QEMU's -serial argument for `socket://HOST:PORT` (QEMU listens there, and takes a new connection when
    one closes) or `pty`. nodelay: the UART hands QEMU one byte at a time, and under Nagle's algorithm each
    response then waited for the host's delayed ACK (~40 ms a frame: loads 3x slower)."""
    if endpoint == "pty":
        return "pty"
    m = _SOCKET.match(endpoint)
    if m is None:
        raise UsageError(f"--serial {endpoint}: give socket://127.0.0.1:PORT or pty")
    return f"tcp:{m['host']}:{m['port']},server=on,wait=off,nodelay=on"


class SerialSim:
    """One QEMU process serving `elf`'s UART at `endpoint`; start() returns the endpoint a client opens
    (the pty's path for `pty`). kill() is a power cut; stop() ends QEMU as Ctrl-C does."""

    def __init__(self, board: Union[Board, str], elf: Union[str, Path], workdir: Union[str, Path], endpoint: str):
        self.board = load_firmware_board(board)
        if self.board.qemu is None:
            raise UsageError(f"board '{self.board.name}' has no QEMU machine to simulate it")
        if shutil.which(QEMU) is None:
            raise ToolchainError(f"{QEMU} not found (apt-get install qemu-system-arm)")
        self.elf, self.workdir, self.endpoint = Path(elf), Path(workdir), endpoint
        self.backend = serial_backend(endpoint)
        self.proc: Optional[subprocess.Popen] = None
        self.port: Optional[str] = None
        self.npu = runs_npu_jobs(self.elf)  # the firmware links the Ethos-U delegate: serve the NPU seam
        self.seam: Optional["NpuSeamServer"] = None
        self.npu_errors: List[str] = []  # what the seams recorded (a job the simulator refused), over all runs

    def command(self) -> List[str]:
        return qemu_command(self.board, self.elf, icount=True, serial=self.backend)

    def start(self, timeout: float = 10.0) -> str:
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = self.workdir / LOG
        if self.npu:  # before QEMU: the firmware finds the pipes when its first NPU job opens the channel
            self.seam = _seam(self.workdir, True)
        with open(log, "wb") as out:  # QEMU's own lines (the pty's name, errors) and semihosting output
            self.proc = subprocess.Popen(self.command(), cwd=self.workdir, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                text = log.read_text(errors="replace").strip().splitlines()
                self._stop_seam()
                raise ToolchainError(f"QEMU ended at start: {text[-1] if text else f'exit {self.proc.returncode}'}")
            port = self._ready(log)
            if port is not None:
                self.port = port
                return port
            time.sleep(0.02)
        self.stop()
        raise ToolchainError(f"QEMU did not open its serial endpoint {self.endpoint} within {timeout:.0f} s")

    def _ready(self, log: Path) -> Optional[str]:
        if self.backend == "pty":
            m = _PTY.search(log.read_text(errors="replace"))
            return m["path"] if m else None
        m = _SOCKET.match(self.endpoint)
        assert m is not None
        try:  # QEMU listens before the guest starts; a probe connection is dropped and the next one served
            with socket.create_connection((m["host"], int(m["port"])), timeout=0.2):
                return self.endpoint
        except OSError:
            return None

    def kill(self) -> None:
        """As a power cut: nothing gets finished."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.proc is not None:
            self.proc.wait()
        self._stop_seam()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._stop_seam()

    def _stop_seam(self) -> None:
        """After QEMU has ended: the seam's thread ends with the channel the firmware held."""
        if self.seam is not None:
            self.seam.stop()
            self.npu_errors += self.seam.errors
            self.seam = None

    def __enter__(self) -> "SerialSim":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def free_tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
