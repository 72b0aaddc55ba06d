"""The NPU seam's wire format (the host side of `boards/ethosu/ethosu_io_semihost.c`; the server that speaks it
is npu_seam.py): one job message from the firmware per NPU job, one reply from the host.

Version 2; every header field a little-endian 32-bit word (the same table is in
`boards/ethosu/ethosu_io_semihost.h`):

    job   word 0    magic 0x4A4E584D ("MXNJ")
               1    version (2)
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
               1    version (2)
               2    header bytes (40)
               3    total bytes: header + region bytes
               4    sequence, echoed
               5    result: 0 executed; 1 the host could not take the job; 2 the executor failed
               6    STATUS as the NPU leaves it (0x22 = cmd_end_reached | irq_raised; a fault: its bits)
               7    out mask: the job's out mask when executed, else 0
             8,9    NPU cycles the job took, low and high word, as the executor counted them (0: not counted);
                    then the out mask's regions' bytes

Version 2 added the reply's cycles (version 1's reply had 8 words; its job header is the same). The firmware's
register file adds them to the PMU's cycle counter (PMCCNTR) when the driver started it, so the driver reads
them as from silicon and the firmware reports them per delegate call ("mx: pmu ..."); 0 is no count, no report.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import List, Tuple

from mcu_export.errors import RuntimeFailure

JOB_PIPE = "npu_job.fifo"
REPLY_PIPE = "npu_reply.fifo"
VERSION = 2
JOB_MAGIC = 0x4A4E584D  # "MXNJ"
REPLY_MAGIC = 0x524E584D  # "MXNR"
REGIONS = 8
JOB_WORDS = 40
REPLY_WORDS = 10
JOB_HEADER_BYTES = 4 * JOB_WORDS
REPLY_HEADER_BYTES = 4 * REPLY_WORDS
MAX_CYCLES = (1 << 48) - 1  # the PMU's cycle counter is 48 bits

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


def _words(data: bytes) -> Tuple[int, ...]:
    return struct.unpack(f"<{len(data) // 4}I", data)


def parse_job_header(header: bytes) -> NpuJob:
    """The job header (JOB_HEADER_BYTES); NpuSeamError when it is not a job of this version."""
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
    """A job as the firmware writes it (for tests and tools)."""
    sizes = [len(r) for r in job.regions]
    in_mask = sum(1 << n for n in range(REGIONS) if sizes[n])
    header = [JOB_MAGIC, VERSION, JOB_HEADER_BYTES, JOB_HEADER_BYTES + len(job.words) + sum(sizes), job.sequence]
    header += [job.npu_id, job.npu_config, job.qbase & 0xFFFFFFFF, job.qbase >> 32, len(job.words)]
    header += [job.qconfig, job.regioncfg]
    for b in job.base:
        header += [b & 0xFFFFFFFF, b >> 32]
    header += sizes + [in_mask, job.out_mask & in_mask, 0, 0]
    return struct.pack(f"<{JOB_WORDS}I", *header) + job.words + b"".join(bytes(r) for r in job.regions)


def encode_reply(
    sequence: int, result: int, status: int, out_mask: int, regions: List[bytearray], cycles: int = 0
) -> bytes:
    body = b"".join(bytes(regions[n]) for n in range(REGIONS) if out_mask >> n & 1)
    header = [REPLY_MAGIC, VERSION, REPLY_HEADER_BYTES, REPLY_HEADER_BYTES + len(body), sequence, result]
    header += [status & 0xFFFFFFFF, out_mask, cycles & 0xFFFFFFFF, cycles >> 32 & 0xFFFFFFFF]
    return struct.pack(f"<{REPLY_WORDS}I", *header) + body


def parse_reply(data: bytes, sizes: Tuple[int, ...]) -> Tuple[int, int, int, int, List[bytes], int]:
    """(sequence, result, status, out mask, the regions sent back, cycles) of a reply (for tests and tools)."""
    w = _words(data[:REPLY_HEADER_BYTES])
    if w[0] != REPLY_MAGIC or w[1] != VERSION or w[2] != REPLY_HEADER_BYTES or w[3] != len(data):
        raise NpuSeamError(f"npu seam: malformed reply header {[hex(x) for x in w]} ({len(data)} bytes)")
    at, back = REPLY_HEADER_BYTES, []
    for n in range(REGIONS):
        if w[7] >> n & 1:
            back.append(data[at : at + sizes[n]])
            at += sizes[n]
    return w[4], w[5], w[6], w[7], back, w[8] | w[9] << 32


def executor_answer(answer) -> Tuple[int, int]:
    """(STATUS, cycles) from what an executor returned: a STATUS word, or (STATUS, NPU cycles the job took)."""
    if isinstance(answer, tuple):
        status, cycles = answer
        cycles = int(cycles)
        if not 0 <= cycles <= MAX_CYCLES:
            raise NpuSeamError(f"the executor's cycle count {cycles} is outside the PMU's 48 bits")
        return int(status), cycles
    return int(answer), 0
