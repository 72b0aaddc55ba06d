"""The NPU seam's protocol (mcu_export/runners/npu_seam.py, npu_wire.py) from a Python stand-in for the firmware,
without QEMU: a round trip, the firmware closing the channel, malformed jobs, an executor that resizes a region,
and the header checks. The firmware side on QEMU: test_npu_seam.py."""

from __future__ import annotations

import os
import struct
import time
from pathlib import Path

import pytest

from mcu_export.runners import npu_seam
from mcu_export.runners.npu_seam import NpuJob, NpuSeamError, NpuSeamServer

U55_128 = (0x10104201, 0x00001807)  # the ID and CONFIG an Ethos-U55-128 reports


class FakeFirmware:
    """Opens the pipes in the firmware's order and speaks the wire format."""

    def __init__(self, directory: Path):
        self.reply = os.open(directory / npu_seam.REPLY_PIPE, os.O_RDONLY)
        self.job = os.open(directory / npu_seam.JOB_PIPE, os.O_WRONLY)

    def send(self, data: bytes) -> None:
        os.write(self.job, data)

    def receive(self) -> bytes:
        header = self._read(npu_seam.REPLY_HEADER_BYTES)
        total = struct.unpack_from("<I", header, 12)[0]
        return header + self._read(total - len(header))

    def _read(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = os.read(self.reply, n - len(out))
            if not chunk:
                raise EOFError(f"reply ended after {len(out)} of {n} bytes")
            out += chunk
        return out

    def close(self) -> None:
        os.close(self.job)
        os.close(self.reply)


def make_job(sequence=1, sizes=(16, 64, 32)) -> NpuJob:
    regions = [bytearray(bytes([n + 1]) * s) for n, s in enumerate(sizes)] + [bytearray()] * (8 - len(sizes))
    return NpuJob(
        sequence=sequence,
        npu_id=U55_128[0],
        npu_config=U55_128[1],
        qbase=0x01000020,
        qconfig=2,
        regioncfg=0x57,
        base=(0x01000100, 0x21000000, 0x21010000, 0, 0, 0, 0, 0),
        sizes=tuple(len(r) for r in regions),
        in_mask=0b111,
        out_mask=0b110,
        words=struct.pack("<4I", 0x4001, 7, 0x100, 0),
        regions=regions,
    )


def test_protocol_round_trip_from_a_python_client(tmp_path):
    def execute(words, regions):
        assert words == struct.pack("<4I", 0x4001, 7, 0x100, 0)
        regions[1][:4] = b"\xaa\xbb\xcc\xdd"
        regions[0][:1] = b"\xff"  # read-only: not sent back
        return npu_seam.bus_error(3), 0x1_2345_6789  # and the NPU cycles it took (48 bits)

    with NpuSeamServer(tmp_path, execute) as seam:
        fw = FakeFirmware(tmp_path)
        for seq in (1, 2):
            fw.send(npu_seam.encode_job(make_job(seq)))
            sequence, result, status, mask, back, cycles = npu_seam.parse_reply(
                fw.receive(), (16, 64, 32, 0, 0, 0, 0, 0)
            )
            assert (sequence, result, status, mask, cycles) == (seq, 0, 0x3006, 0b110, 0x1_2345_6789)
            assert back == [b"\xaa\xbb\xcc\xdd" + b"\x02" * 60, b"\x03" * 32]
        fw.close()
        deadline = time.monotonic() + 5
        while seam.sessions < 1 or len(seam.jobs) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.01)
    assert [r.job.regions[0] for r in seam.jobs] == [bytearray(b"\x01" * 16)] * 2  # as the firmware sent them
    assert [r.cycles for r in seam.jobs] == [0x1_2345_6789] * 2
    assert not (tmp_path / npu_seam.JOB_PIPE).exists() and not (tmp_path / npu_seam.REPLY_PIPE).exists()


def test_server_ends_when_the_firmware_closes_the_channel(tmp_path):
    with NpuSeamServer(tmp_path, lambda w, r: npu_seam.OK) as seam:
        assert seam.serving()
        fw = FakeFirmware(tmp_path)
        fw.send(npu_seam.encode_job(make_job(1)))
        assert npu_seam.parse_reply(fw.receive(), (16, 64, 32, 0, 0, 0, 0, 0))[:4] == (1, 0, npu_seam.OK, 0b110)
        fw.close()
        deadline = time.monotonic() + 5
        while seam.serving():
            assert time.monotonic() < deadline
            time.sleep(0.01)
    assert seam.sessions == 1 and len(seam.jobs) == 1


def test_malformed_job_is_an_error_and_ends_the_session(tmp_path):
    with pytest.raises(NpuSeamError, match="job magic 0xdeadbeef"):
        with NpuSeamServer(tmp_path, lambda w, r: npu_seam.OK):
            fw = FakeFirmware(tmp_path)
            fw.send(struct.pack("<40I", 0xDEADBEEF, *range(39)))
            with pytest.raises(EOFError):
                fw.receive()
            fw.close()


def test_executor_that_resizes_a_region_is_refused(tmp_path):
    def shrink(words, regions):
        del regions[1][8:]
        return npu_seam.OK

    seam = NpuSeamServer(tmp_path, shrink, strict=False).start()
    try:
        fw = FakeFirmware(tmp_path)
        fw.send(npu_seam.encode_job(make_job()))
        sequence, result, status, mask, back, cycles = npu_seam.parse_reply(fw.receive(), (16, 64, 32, 0, 0, 0, 0, 0))
        assert (result, mask, back, cycles) == (npu_seam.EXECUTOR_FAILED, 0, [], 0)
        fw.close()
    finally:
        seam.stop()
    assert "resized region(s) [1]" in seam.errors[0]


def test_header_checks():
    good = npu_seam.encode_job(make_job())
    assert npu_seam.parse_job_header(good[: npu_seam.JOB_HEADER_BYTES]).sizes[:3] == (16, 64, 32)
    bad_version = bytearray(good[: npu_seam.JOB_HEADER_BYTES])
    bad_version[4] = 1  # a firmware of version 1: its reply had no cycles
    with pytest.raises(NpuSeamError, match="job version 1"):
        npu_seam.parse_job_header(bytes(bad_version))
    bad_total = bytearray(good[: npu_seam.JOB_HEADER_BYTES])
    bad_total[12] ^= 1
    with pytest.raises(NpuSeamError, match="the header adds up to"):
        npu_seam.parse_job_header(bytes(bad_total))
