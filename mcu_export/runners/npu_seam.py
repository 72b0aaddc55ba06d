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

Wire format, version 1; every header field a little-endian 32-bit word (the same table is in
`boards/ethosu/ethosu_io_semihost.h`):

    job   word 0    magic 0x4A4E584D ("MXNJ")
               1    version (1)
               2    header bytes (160)
               3    total bytes: header + command words + region bytes
               4    sequence: the job's number, 1, 2, ... since the firmware's init (a job that failed in
                    the firmware before it was sent still took its number)
               5,6  ID and CONFIG the firmware's register file reports (the NPU the board has)
               7,8  QBASE low, high (a firmware address; for checking only)
               9    QSIZE: bytes of command words that follow the header
              10    QCONFIG        11  REGIONCFG
           12..27   BASEP0..7, low and high word each (firmware addresses; for checking only)
           28..35   size of region 0..7 (0: not used)
              36    in mask: bit n = region n's bytes follow (ascending n), after the command words
              37    out mask: bit n = the reply carries region n back (every used region but read-only ones)
           38,39    0
    reply word 0    magic 0x524E584D ("MXNR")
               1    version (1)
               2    header bytes (32)
               3    total bytes: header + region bytes
               4    sequence, echoed
               5    result: 0 executed; 1 the host could not take the job; 2 the executor failed
               6    STATUS as the NPU leaves it (0x22 = cmd_end_reached | irq_raised; a fault: its bits)
               7    out mask: the job's out mask when executed, else 0; then those regions' bytes

Addresses in the command stream are offsets into the region of their base pointer, so the executor needs only
the regions' contents; the base pointers travel for checking. Every used region goes to the host on every job,
the read-only weights included. Measured on QEMU 7.2 with a trivial executor: a round trip takes about 0.4 ms
with a 32 KB scratch, 0.7 ms with 256 KB of weights as well, 1.3 ms with 512 KB of weights, a 64 KB scratch and
16 KB of fast scratch; weights cost about 1 ms per MB, so there is no cache of them to keep coherent.

The executor is `execute(words: bytes, regions: list[bytearray]) -> int`: the command words (QSIZE bytes) and
eight regions (empty when unused); it edits the regions in place and returns the STATUS the NPU ends in
(`OK`, `BUS_ERROR`, ... below, or any STATUS word). A region must keep its size. An exception is recorded in
`NpuSeamServer.errors` and the job is refused (result 2); the firmware's driver then reports the job as stopped
early (MX_ETHOSU_E_NOT_ENDED) and the firmware prints "mx: npu seam: ...".
"""

from __future__ import annotations

import errno
import os
import select
import stat
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional, Tuple, Union

from mcu_export.errors import RuntimeFailure

JOB_PIPE = "npu_job.fifo"
REPLY_PIPE = "npu_reply.fifo"
VERSION = 1
JOB_MAGIC = 0x4A4E584D  # "MXNJ"
REPLY_MAGIC = 0x524E584D  # "MXNR"
REGIONS = 8
JOB_WORDS = 40
REPLY_WORDS = 8
JOB_HEADER_BYTES = 4 * JOB_WORDS
REPLY_HEADER_BYTES = 4 * REPLY_WORDS

# Reply results.
EXECUTED, REFUSED_JOB, EXECUTOR_FAILED = 0, 1, 2

# STATUS bits (boards/ethosu/ethosu_regs.h) and the final STATUS of the common outcomes.
IRQ_RAISED = 1 << 1
BUS_STATUS = 1 << 2
CMD_PARSE_ERROR_BIT = 1 << 4
CMD_END_REACHED = 1 << 5
WD_FAULT_BIT = 1 << 7
ECC_FAULT_BIT = 1 << 8
OK = CMD_END_REACHED | IRQ_RAISED
BUS_ERROR = BUS_STATUS | IRQ_RAISED
CMD_PARSE_ERROR = CMD_PARSE_ERROR_BIT | IRQ_RAISED
WEIGHT_DECODER_FAULT = WD_FAULT_BIT | IRQ_RAISED
ECC_FAULT = ECC_FAULT_BIT | IRQ_RAISED
NOT_ENDED = IRQ_RAISED  # stopped before the end of the stream, no fault


def bus_error(channel: int, interface: int = 0) -> int:
    """STATUS after a bus abort on `channel` (read: 0 cmd, 1 IFM, 2 weights, 3 scale; write: 8 OFM)."""
    return BUS_ERROR | (interface & 1) << 11 | (channel & 0xF) << 12


Executor = Callable[[bytes, List[bytearray]], int]

_POLL_S = 0.05  # how often a waiting server looks at its stop flag


class NpuSeamError(RuntimeFailure):
    """The seam's host side failed: a malformed job, an executor that raised, a broken channel."""


@dataclass
class NpuJob:
    """One job as the firmware sent it."""

    sequence: int
    npu_id: int
    npu_config: int
    qbase: int
    qconfig: int
    regioncfg: int
    base: Tuple[int, ...]  # the eight base pointers (firmware addresses)
    sizes: Tuple[int, ...]  # the eight region sizes (0: unused)
    in_mask: int
    out_mask: int
    words: bytes = b""  # the command words (QSIZE bytes)
    regions: List[bytearray] = field(default_factory=list)
    qsize: int = 0  # QSIZE from the header (parse_job_header), before the words are read


@dataclass(frozen=True)
class JobRecord:
    """What the server did with one job: the job (its regions as received), STATUS, result, wall times."""

    job: NpuJob
    status: int
    result: int
    received: float  # time.monotonic() when the job's header arrived
    replied: float  # when the reply was written
    job_bytes: int
    reply_bytes: int


def _words(data: bytes) -> Tuple[int, ...]:
    return struct.unpack(f"<{len(data) // 4}I", data)


def parse_job_header(header: bytes) -> NpuJob:
    """The job header (JOB_HEADER_BYTES); NpuSeamError when it is not a version-1 job."""
    if len(header) != JOB_HEADER_BYTES:
        raise NpuSeamError(f"npu seam: job header of {len(header)} bytes, expected {JOB_HEADER_BYTES}")
    w = _words(header)
    if w[0] != JOB_MAGIC:
        raise NpuSeamError(f"npu seam: job magic 0x{w[0]:08x}, expected 0x{JOB_MAGIC:08x}")
    if w[1] != VERSION or w[2] != JOB_HEADER_BYTES:
        raise NpuSeamError(f"npu seam: job version {w[1]} with a {w[2]}-byte header; this host speaks {VERSION}")
    base = tuple(w[12 + 2 * n] | w[13 + 2 * n] << 32 for n in range(REGIONS))
    job = NpuJob(
        sequence=w[4],
        npu_id=w[5],
        npu_config=w[6],
        qbase=w[7] | w[8] << 32,
        qconfig=w[10],
        regioncfg=w[11],
        base=base,
        sizes=tuple(w[28 : 28 + REGIONS]),
        in_mask=w[36],
        out_mask=w[37],
    )
    qsize = w[9]
    used = sum(1 << n for n in range(REGIONS) if job.sizes[n])
    if qsize % 4 or qsize == 0:
        raise NpuSeamError(f"npu seam: job {job.sequence}: QSIZE {qsize} is not a positive number of words")
    if job.in_mask != used or job.out_mask & ~used:
        raise NpuSeamError(
            f"npu seam: job {job.sequence}: in mask 0x{job.in_mask:02x} / out mask 0x{job.out_mask:02x} "
            f"do not match the used regions 0x{used:02x}"
        )
    total = JOB_HEADER_BYTES + qsize + sum(job.sizes)
    if w[3] != total:
        raise NpuSeamError(f"npu seam: job {job.sequence}: total {w[3]} bytes, the header adds up to {total}")
    job.qsize = qsize
    return job


def encode_job(job: NpuJob) -> bytes:
    """A version-1 job as the firmware writes it (for tests and tools)."""
    sizes = [len(r) for r in job.regions]
    in_mask = sum(1 << n for n in range(REGIONS) if sizes[n])
    header = [JOB_MAGIC, VERSION, JOB_HEADER_BYTES, JOB_HEADER_BYTES + len(job.words) + sum(sizes), job.sequence]
    header += [job.npu_id, job.npu_config, job.qbase & 0xFFFFFFFF, job.qbase >> 32, len(job.words)]
    header += [job.qconfig, job.regioncfg]
    for b in job.base:
        header += [b & 0xFFFFFFFF, b >> 32]
    header += sizes + [in_mask, job.out_mask & in_mask, 0, 0]
    return struct.pack(f"<{JOB_WORDS}I", *header) + job.words + b"".join(bytes(r) for r in job.regions)


def encode_reply(sequence: int, result: int, status: int, out_mask: int, regions: List[bytearray]) -> bytes:
    body = b"".join(bytes(regions[n]) for n in range(REGIONS) if out_mask >> n & 1)
    header = [REPLY_MAGIC, VERSION, REPLY_HEADER_BYTES, REPLY_HEADER_BYTES + len(body), sequence, result]
    header += [status & 0xFFFFFFFF, out_mask]
    return struct.pack(f"<{REPLY_WORDS}I", *header) + body


def parse_reply(data: bytes, sizes: Tuple[int, ...]) -> Tuple[int, int, int, int, List[bytes]]:
    """(sequence, result, status, out mask, the regions sent back) of a version-1 reply (for tests and tools)."""
    w = _words(data[:REPLY_HEADER_BYTES])
    if w[0] != REPLY_MAGIC or w[1] != VERSION or w[2] != REPLY_HEADER_BYTES or w[3] != len(data):
        raise NpuSeamError(f"npu seam: malformed reply header {[hex(x) for x in w]} ({len(data)} bytes)")
    at, back = REPLY_HEADER_BYTES, []
    for n in range(REGIONS):
        if w[7] >> n & 1:
            back.append(data[at : at + sizes[n]])
            at += sizes[n]
    return w[4], w[5], w[6], w[7], back


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
            result, status = EXECUTED, 0
            self.current = job
            try:
                status = int(self.execute(job.words, job.regions))
                resized = [n for n in range(REGIONS) if len(job.regions[n]) != job.sizes[n]]
                if resized:
                    raise NpuSeamError(f"the executor resized region(s) {resized}")
            except Exception as err:  # noqa: BLE001 - the executor is foreign code; report, refuse, go on
                self.errors.append(f"npu seam: job {job.sequence}: executor failed: {type(err).__name__}: {err}")
                result, status = EXECUTOR_FAILED, 0
            self.current = None
            out_mask = job.out_mask if result == EXECUTED else 0
            reply = encode_reply(job.sequence, result, status, out_mask, job.regions)
            _write_all(reply_fd, reply)
            job.regions = [bytearray(r) for r in sent]  # the record keeps what the firmware sent
            self.jobs.append(
                JobRecord(
                    job=job,
                    status=status,
                    result=result,
                    received=received,
                    replied=time.monotonic(),
                    job_bytes=JOB_HEADER_BYTES + job.qsize + sum(job.sizes),
                    reply_bytes=len(reply),
                )
            )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
