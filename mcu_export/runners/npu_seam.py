"""The host side of the NPU seam: firmware built with `boards/ethosu/ethosu_io_semihost.c` runs on a simulator
without an Ethos-U (QEMU's mps3-an547) and hands each NPU job to this server, which runs it on an executor (our
NPU simulator, or a test's stand-in) and hands the modified memory back.

The channel is two named pipes in the simulator's semihosting folder, both created here (mkfifo):
    npu_reply.fifo   host -> firmware; the firmware opens it first ("rb"), so a folder without it means no host
                     (the firmware fails the job at once); with it, the open waits for this server
    npu_job.fifo     firmware -> host ("wb")
Both stay open for the run. QEMU serves SYS_OPEN/READ/WRITE with open(2)/read(2)/write(2) on the host, so a
SYS_READ blocks until the reply arrives: the guest, and with -icount its virtual clock, stand still while the
host works. A SYS_READ returns whatever the pipe holds (the firmware loops until it has the whole message).

The wire format (version 2) is npu_wire.py's, documented there and in `boards/ethosu/ethosu_io_semihost.h`.

Addresses in the command stream are offsets into the region of their base pointer, so the executor needs only
the regions' contents; the base pointers travel for checking. Every used region goes to the host on every job,
the read-only weights included. Measured on QEMU 7.2 with a trivial executor: a round trip takes about 0.4 ms
with a 32 KB scratch, 0.7 ms with 256 KB of weights as well, 1.3 ms with 512 KB of weights, a 64 KB scratch and
16 KB of fast scratch; weights cost about 1 ms per MB, so there is no cache of them to keep coherent.

The executor is `execute(words: bytes, regions: list[bytearray]) -> int | (int, int)`: the command words (QSIZE
bytes) and eight regions (empty when unused); it edits the regions in place and returns the STATUS the NPU ends in
(`OK`, `BUS_ERROR`, ... of npu_wire, or any STATUS word), or (STATUS, the NPU cycles the job took), which the reply
carries to the firmware's PMU cycle counter (a plain STATUS, as our simulator returns, counts 0: the firmware then
reports no cycles). A region must keep its size. An exception is recorded in
`NpuSeamServer.errors` and the job is refused (result 2); the firmware's driver then reports the job as stopped
early (MX_ETHOSU_E_NOT_ENDED) and the firmware prints "mx: npu seam: ...".
"""

from __future__ import annotations

import errno
import os
import select
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Tuple, Union

from mcu_export.runners.npu_wire import (  # noqa: F401 - re-exported: the seam's names, as before the split
    BUS_ERROR,
    CMD_PARSE_ERROR,
    ECC_FAULT,
    EXECUTED,
    EXECUTOR_FAILED,
    JOB_HEADER_BYTES,
    JOB_PIPE,
    NOT_ENDED,
    OK,
    REFUSED_JOB,
    REGIONS,
    REPLY_HEADER_BYTES,
    REPLY_PIPE,
    VERSION,
    WEIGHT_DECODER_FAULT,
    NpuJob,
    NpuSeamError,
    bus_error,
    encode_job,
    encode_reply,
    executor_answer,
    parse_job_header,
    parse_reply,
)

# The command words and the eight regions -> STATUS, or (STATUS, NPU cycles).
Executor = Callable[[bytes, List[bytearray]], Union[int, Tuple[int, int]]]

_POLL_S = 0.05  # how often a waiting server looks at its stop flag


@dataclass(frozen=True)
class JobRecord:
    """What the server did with one job: the job (its regions as received), STATUS, result, wall times, and the NPU
    cycles the executor reported (0: none)."""

    job: NpuJob
    status: int
    result: int
    received: float  # time.monotonic() when the job's header arrived
    replied: float  # when the reply was ready to write
    job_bytes: int
    reply_bytes: int
    cycles: int = 0


class _Closed(Exception):
    """The firmware closed the job pipe (it exited) or the server was stopped."""


class NpuSeamServer:
    """Serves the seam in `directory` (the simulator's semihosting folder) on a background thread.

        with NpuSeamServer(workdir, execute) as seam:
            run_qemu(board, elf, semihosting_dir=workdir, timeout=...)
        seam.jobs  # one JobRecord per job

    Start it before the simulator: it creates the two FIFOs (replacing stale ones) and removes them on stop.
    It serves one simulator run (one opening of the channel), then its thread ends: use one server per run.
    (Serving runs one after another on the same FIFOs would race: a new firmware can open its ends while the
    last run's are still held here, and then read an end of file in the gap.) Leaving the `with` block stops it and, when
    `strict` and no other exception is on its way, raises NpuSeamError for anything recorded in `errors`.
    """

    def __init__(self, directory: Union[str, Path], execute: Executor, *, strict: bool = True):
        self.directory = Path(directory)
        self.execute = execute
        self.strict = strict
        self.jobs: List[JobRecord] = []
        self.errors: List[str] = []
        self.sessions = 0  # 1 once the firmware has opened the channel
        self.current: Optional[NpuJob] = None  # the job being executed (its ID/CONFIG, bases), for the executor
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    @property
    def job_pipe(self) -> Path:
        return self.directory / JOB_PIPE

    @property
    def reply_pipe(self) -> Path:
        return self.directory / REPLY_PIPE

    def start(self) -> "NpuSeamServer":
        self.directory.mkdir(parents=True, exist_ok=True)
        for pipe in (self.job_pipe, self.reply_pipe):
            if pipe.exists() or pipe.is_symlink():
                pipe.unlink()
            os.mkfifo(pipe, 0o600)
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="npu-seam", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                self.errors.append("npu seam: the server thread did not stop")
            self._thread = None
        for pipe in (self.job_pipe, self.reply_pipe):
            try:
                if stat.S_ISFIFO(pipe.lstat().st_mode):
                    pipe.unlink()
            except FileNotFoundError:
                pass

    def check(self) -> None:
        if self.errors:
            raise NpuSeamError("; ".join(self.errors))

    def __enter__(self) -> "NpuSeamServer":
        return self.start()

    def __exit__(self, exc_type, exc, tb) -> None:
        self.stop()
        if self.strict and exc_type is None:
            self.check()

    # ---- the serving thread ----

    def serving(self) -> bool:
        """Whether the thread still runs: it ends when the firmware closes the channel (the simulator exited)."""
        return self._thread is not None and self._thread.is_alive()

    def _serve(self) -> None:
        reply = self._open_reply()
        if reply is None:
            return
        self.sessions += 1
        job = os.open(self.job_pipe, os.O_RDONLY | os.O_NONBLOCK)
        try:
            self._session(job, reply)
        except _Closed:
            pass
        except (NpuSeamError, OSError) as err:
            self.errors.append(str(err))
        finally:
            os.close(job)
            os.close(reply)

    def _open_reply(self) -> Optional[int]:
        """The write end of the reply pipe, once the firmware has opened its read end (ENXIO until then)."""
        while not self._stop.is_set():
            try:
                fd = os.open(self.reply_pipe, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as err:
                if err.errno != errno.ENXIO:
                    self.errors.append(f"npu seam: cannot open {self.reply_pipe}: {err}")
                    return None
                time.sleep(0.002)
                continue
            os.set_blocking(fd, True)
            return fd
        return None

    def _read(self, fd: int, size: int, *, first: bool = False) -> bytearray:
        """Exactly `size` bytes; _Closed at the end of the stream before the first byte of a message."""
        out = bytearray()
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP)
        while len(out) < size:
            if self._stop.is_set():
                raise _Closed()
            if not poller.poll(_POLL_S * 1000):
                continue
            try:
                chunk = os.read(fd, size - len(out))
            except BlockingIOError:
                continue
            if not chunk:
                if first and not out:
                    raise _Closed()
                raise NpuSeamError(f"npu seam: the job pipe ended {len(out)} bytes into a {size}-byte read")
            out += chunk
        return out

    def _session(self, job_fd: int, reply_fd: int) -> None:
        while True:
            header = self._read(job_fd, JOB_HEADER_BYTES, first=True)
            received = time.monotonic()
            job = parse_job_header(bytes(header))  # a malformed header loses the framing: end the session
            job.words = bytes(self._read(job_fd, job.qsize))
            job.regions = [self._read(job_fd, size) if size else bytearray() for size in job.sizes]
            sent = [bytes(r) for r in job.regions]
            result, status, cycles = EXECUTED, 0, 0
            self.current = job
            try:
                status, cycles = executor_answer(self.execute(job.words, job.regions))
                resized = [n for n in range(REGIONS) if len(job.regions[n]) != job.sizes[n]]
                if resized:
                    raise NpuSeamError(f"the executor resized region(s) {resized}")
            except Exception as err:  # noqa: BLE001 - the executor is foreign code; report, refuse, go on
                self.errors.append(f"npu seam: job {job.sequence}: executor failed: {type(err).__name__}: {err}")
                result, status, cycles = EXECUTOR_FAILED, 0, 0
            self.current = None
            out_mask = job.out_mask if result == EXECUTED else 0
            reply = encode_reply(job.sequence, result, status, out_mask, job.regions, cycles)
            job.regions = [bytearray(r) for r in sent]  # the record keeps what the firmware sent
            # Recorded before the reply goes out: whoever saw the firmware act on the reply finds the job here.
            self.jobs.append(
                JobRecord(
                    job=job,
                    status=status,
                    result=result,
                    received=received,
                    replied=time.monotonic(),
                    job_bytes=JOB_HEADER_BYTES + job.qsize + sum(job.sizes),
                    reply_bytes=len(reply),
                    cycles=cycles,
                )
            )
            _write_all(reply_fd, reply)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
