"""The NPU seam: firmware built with boards/ethosu/ethosu_io_semihost.c runs the Ethos-U driver on QEMU (which has
no NPU) and hands each job over semihosting FIFOs to the host (mcu_export/runners/npu_seam.py), whose executor
edits the regions and answers with a STATUS. Checked: what the host receives (command words, region sizes and
bytes, base pointers in NPU-reachable memory), what the firmware gets back, a bus error followed by a good job,
an executor that raises, no host at all, a host that never answers, and the round-trip time. The protocol from a
Python stand-in for the firmware, without QEMU: test_npu_seam_protocol.py."""

from __future__ import annotations

import os
import struct
import time
from pathlib import Path

import pytest

from ethosu_graphs import max_pool_graph  # tests/support
from mcu_export.runners import npu_seam
from mcu_export.runners.npu_seam import NpuSeamError, NpuSeamServer
from npu_test_tools import FIRMWARE_TOOLS, memory_of, needs, stream_words  # tests/support

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "boards" / "ethosu"
FIRMWARE_C = Path(__file__).resolve().parent / "support" / "npu_seam_fw.c"
BOARD = "corstone-300"
U55_128 = (0x10104201, 0x00001807)
PATTERN = bytes((i * 37 + 11) & 0xFF for i in range(256))
QEMU_TIMEOUT = 30.0


needs_qemu = needs("qemu-system-arm", *FIRMWARE_TOOLS)


def c_array(name: str, data: bytes) -> str:
    body = ",".join(str(b) for b in data)
    return f"static const uint8_t {name}[{len(data)}] __attribute__((aligned(16))) = {{{body}}};\n"


@pytest.fixture(scope="module")
def blob():
    pytest.importorskip("tosa_serializer")
    from mcu_export.ethosu.vela import compile_tosa

    return compile_tosa(max_pool_graph(), "ethos-u55-128").blob


def io_span(record) -> tuple:
    size = record.elem_size
    for dim in record.shape:
        size *= dim
    return record.offset, size


@pytest.fixture(scope="module")
def firmware(blob, tmp_path_factory):
    """(elf, its symbols) of npu_seam_fw.c with the max-pool payload embedded."""
    from mcu_export.firmware.build import build_project, render_project
    from mcu_export.firmware.elf import Elf

    (in_off, in_size), (out_off, out_size) = io_span(blob.inputs[0]), io_span(blob.outputs[0])
    assert blob.inputs[0].region == blob.outputs[0].region == 1 and out_size == len(PATTERN)
    header = (
        "#include <stdint.h>\n"
        f"#define SEAM_INPUT_OFFSET {in_off}u\n#define SEAM_INPUT_BYTES {in_size}u\n"
        f"#define SEAM_OUTPUT_OFFSET {out_off}u\n#define SEAM_OUTPUT_BYTES {out_size}u\n"
        f"#define SEAM_SCRATCH_BYTES {blob.scratch_size}u\n"
        + c_array("seam_cmd", blob.cmd_data)
        + c_array("seam_weights", blob.weight_data)
    )
    sources = {f"ethosu/{p.name}": p for p in DRIVER.glob("*.h")}
    sources["ethosu/ethosu_driver.c"] = DRIVER / "ethosu_driver.c"
    sources["ethosu/ethosu_u85.c"] = DRIVER / "ethosu_u85.c"
    sources["ethosu/ethosu_pmu.c"] = DRIVER / "ethosu_pmu.c"
    sources["ethosu/ethosu_io_semihost.c"] = DRIVER / "ethosu_io_semihost.c"
    sources["ethosu/ethosu_regfile.c"] = DRIVER / "ethosu_regfile.c"
    sources["app/main.c"] = FIRMWARE_C
    sources["app/npu_seam_payload.h"] = header
    project = render_project(BOARD, tmp_path_factory.mktemp("npu_seam_fw"), sources, include_dirs=["ethosu", "app"])
    # The seam's on_done hook runs the interrupt handler inside the register write that starts a job, and the
    # handler writes registers: recursion one level deep by the driver's logic, which the stack analysis refuses
    # (it cannot see the bound); this test firmware reserves the board's stack_size instead.
    elf = build_project(project, analyse_stack=False).elf
    return elf, Elf(elf).symbols()


def setup_run(workdir: Path, blob, jobs=1, scratch=0, weights=0, fast=0, irq=False, bases=3) -> bytes:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "seam_cfg.bin").write_bytes(struct.pack("<6I", jobs, scratch, weights, fast, int(irq), bases))
    in_size = io_span(blob.inputs[0])[1]
    data = bytes((3 * i + 1) & 0xFF for i in range(in_size))
    (workdir / "in.bin").write_bytes(data)
    return data


def run(elf, workdir: Path, timeout: float = QEMU_TIMEOUT, **kw):
    from mcu_export.firmware.qemu import run_qemu

    return run_qemu(BOARD, elf, timeout=timeout, semihosting_dir=workdir, **kw)


class Checker:
    """The test's executor: checks the job against the payload, writes PATTERN at the output offset."""

    def __init__(self, blob, input_bytes: bytes, statuses=()):
        self.blob, self.input, self.statuses = blob, input_bytes, list(statuses)
        self.calls = 0

    def __call__(self, words: bytes, regions):
        self.calls += 1
        assert words == stream_words(self.blob.cmd_data)
        assert [len(r) for r in regions] == [len(self.blob.weight_data), self.blob.scratch_size] + [0] * 6
        assert bytes(regions[0]) == self.blob.weight_data
        in_off, in_size = io_span(self.blob.inputs[0])
        assert bytes(regions[1][in_off : in_off + in_size]) == self.input
        out_off = self.blob.outputs[0].offset
        regions[1][out_off : out_off + len(PATTERN)] = PATTERN
        return self.statuses.pop(0) if self.statuses else npu_seam.OK


@pytest.mark.slow
@needs_qemu
def test_job_reaches_the_host_and_its_output_the_firmware(firmware, blob, tmp_path):
    elf, symbols = firmware
    data = setup_run(tmp_path, blob)
    checker = Checker(blob, data)
    with NpuSeamServer(tmp_path, checker) as seam:
        result = run(elf, tmp_path)
    assert result.exit_code == 0, result.uart_text
    assert "seam: init 0 ok" in result.uart_text and "seam: job 1 0 ok" in result.uart_text
    assert (tmp_path / "out.bin").read_bytes() == PATTERN
    assert checker.calls == 1 and len(seam.jobs) == 1 and seam.sessions == 1
    job = seam.jobs[0].job
    assert (job.sequence, job.npu_id, job.npu_config) == (1, *U55_128)
    # The base pointers are the firmware's own buffers, in memory the NPU reaches (not TCM).
    cmd, weights, scratch = (symbols[n].address for n in ("seam_cmd", "seam_weights", "scratch"))
    assert job.qbase == cmd + blob.cmd_data.index(stream_words(blob.cmd_data))
    assert job.base == (weights, scratch, 0, 0, 0, 0, 0, 0)
    assert (memory_of(BOARD, cmd), memory_of(BOARD, weights), memory_of(BOARD, scratch)) == ("bram", "bram", "isram")
    assert job.sizes == (len(blob.weight_data), blob.scratch_size, 0, 0, 0, 0, 0, 0)
    assert (job.in_mask, job.out_mask) == (0b011, 0b010)  # weights go in only
    assert job.regioncfg == 0x5553 and job.qconfig == 2  # driver defaults: weights limit 3, scratch 0, rest 1
    assert seam.jobs[0].reply_bytes == npu_seam.REPLY_HEADER_BYTES + blob.scratch_size


def fnv1a(data: bytes) -> int:
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def done_line(uart_text: str) -> dict:
    line = next(line for line in uart_text.splitlines() if line.startswith("seam: done "))
    return {k: int(v, 0) for k, v in (item.split("=") for item in line.split()[2:])}


@pytest.mark.slow
@needs_qemu
def test_the_drivers_interrupt_path(firmware, blob, tmp_path):
    """cfg.irq: the seam's on_done hook stands for the NPU's interrupt and calls mx_ethosu_irq_handler."""
    elf, _ = firmware
    data = setup_run(tmp_path, blob, jobs=2, irq=True)
    with NpuSeamServer(tmp_path, Checker(blob, data, statuses=[npu_seam.bus_error(2)])):
        result = run(elf, tmp_path)
    assert "seam: job 1 -18 " in result.uart_text and "seam: job 2 0 ok" in result.uart_text, result.uart_text
    assert (tmp_path / "out.bin").read_bytes() == PATTERN


@pytest.mark.slow
@needs_qemu
def test_regions_larger_than_a_pipe_cross_in_pieces(firmware, blob, tmp_path):
    """64 KB scratch + 16 KB fast scratch back, 256 KB weights out: more than a pipe holds (64 KB), so QEMU's
    SYS_READ returns part of a region and the firmware asks again; every byte arrives."""
    elf, symbols = firmware
    setup_run(tmp_path, blob, scratch=64 * 1024, weights=256 * 1024, fast=16 * 1024)
    written = {}

    def fill(words, regions):
        assert [len(r) for r in regions[:3]] == [256 * 1024, 64 * 1024, 16 * 1024]
        assert bytes(regions[0]) == bytes(256 * 1024)  # the DDR stand-in for weights: QEMU's RAM starts zeroed
        for n in (1, 2):
            regions[n][:] = bytes((i * 7 + n + (i >> 8)) & 0xFF for i in range(len(regions[n])))
            written[n] = bytes(regions[n])
        return npu_seam.OK

    with NpuSeamServer(tmp_path, fill) as seam:
        result = run(elf, tmp_path)
    assert result.exit_code == 0, result.uart_text
    done = done_line(result.uart_text)
    assert (done["scratch"], done["fast"]) == (fnv1a(written[1]), fnv1a(written[2]))
    assert (
        seam.jobs[0].job.base[0] == symbols["big_weights"].address
        and memory_of(BOARD, symbols["big_weights"].address) == "ddr"
    )
    # 5 writes (header, command words, 3 regions) and more than 3 reads (header, 2 regions): the 64 KB region
    # behind the reply's header cannot come in one read (a pipe holds 16 pages; the header's is still in it).
    assert done["transfers"] >= 9, done


@pytest.mark.slow
@needs_qemu
def test_bus_error_then_the_next_job_runs(firmware, blob, tmp_path):
    elf, _ = firmware
    data = setup_run(tmp_path, blob, jobs=2)
    checker = Checker(blob, data, statuses=[npu_seam.bus_error(channel=8, interface=1)])
    with NpuSeamServer(tmp_path, checker) as seam:
        result = run(elf, tmp_path)
    assert "seam: job 1 -18 " in result.uart_text, result.uart_text  # MX_ETHOSU_E_BUS
    assert "seam: job 2 0 ok" in result.uart_text
    assert result.exit_code == 1  # one failed job
    assert (tmp_path / "out.bin").read_bytes() == PATTERN
    assert [r.job.sequence for r in seam.jobs] == [1, 2] and checker.calls == 2


@pytest.mark.slow
@needs_qemu
def test_executor_that_raises_fails_one_job_not_the_channel(firmware, blob, tmp_path):
    elf, _ = firmware
    data = setup_run(tmp_path, blob, jobs=2)
    calls = []

    def flaky(words, regions):
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("opcode 0x123 not implemented")
        return Checker(blob, data)(words, regions)

    with NpuSeamServer(tmp_path, flaky, strict=False) as seam:
        result = run(elf, tmp_path)
    assert "mx: npu seam: job 1: the host could not run the job (result 2)" in result.uart_text, result.uart_text
    assert "seam: job 1 -22 " in result.uart_text  # MX_ETHOSU_E_NOT_ENDED
    assert "seam: job 2 0 ok" in result.uart_text and result.exit_code == 1
    assert len(seam.errors) == 1 and "opcode 0x123 not implemented" in seam.errors[0]
    with pytest.raises(NpuSeamError, match="ValueError"):
        seam.check()


class ScriptedHost:
    """A misbehaving host on raw FIFOs: opens the channel as the server does, then runs `script(job_fd, reply_fd)`
    and closes both."""

    def __init__(self, directory: Path, script):
        import threading

        self.directory, self.script = directory, script
        os.mkfifo(directory / npu_seam.JOB_PIPE)
        os.mkfifo(directory / npu_seam.REPLY_PIPE)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        reply = os.open(self.directory / npu_seam.REPLY_PIPE, os.O_WRONLY)  # until the firmware opens it
        job = os.open(self.directory / npu_seam.JOB_PIPE, os.O_RDONLY)
        try:
            self.script(job, reply)
        finally:
            os.close(job)
            os.close(reply)

    @staticmethod
    def read(fd, n):
        out = b""
        while len(out) < n:
            chunk = os.read(fd, n - len(out))
            assert chunk, "job pipe ended"
            out += chunk
        return out


@pytest.mark.slow
@needs_qemu
@pytest.mark.parametrize(
    "script, scratch, message",
    [
        ("header_then_gone", 64 * 1024, "the host stopped reading the job"),
        ("half_a_reply", 0, "the reply ended early: the host went away"),
        ("wrong_sequence", 0, "the reply does not match its job"),
    ],
)
def test_a_host_that_breaks_the_channel(firmware, blob, tmp_path, script, scratch, message):
    """Each channel error fails its job at once with its own message, closes the channel (the next job fails
    without waiting), and QEMU itself survives it (a write to a pipe nobody reads is EPIPE, not SIGPIPE)."""
    elf, _ = firmware
    setup_run(tmp_path, blob, jobs=2, scratch=scratch)

    def act(job, reply):
        header = ScriptedHost.read(job, npu_seam.JOB_HEADER_BYTES)
        if script == "header_then_gone":
            return
        total = struct.unpack_from("<I", header, 12)[0]
        ScriptedHost.read(job, total - len(header))
        sequence = struct.unpack_from("<I", header, 16)[0]
        if script == "half_a_reply":
            os.write(reply, npu_seam.encode_reply(sequence, 0, npu_seam.OK, 0, [])[:16])
        else:
            os.write(reply, npu_seam.encode_reply(sequence + 5, 0, npu_seam.OK, 0, []))

    host = ScriptedHost(tmp_path, act)
    result = run(elf, tmp_path, timeout=10)
    host.thread.join(5)
    text = result.uart_text
    assert f"mx: npu seam: job 1: {message}" in text, text
    assert "mx: npu seam: job 2: the channel was closed by an earlier error" in text
    assert "seam: job 1 -22 " in text and "seam: job 2 -22 " in text and result.exit_code == 2


@pytest.mark.slow
@needs_qemu
def test_a_declared_region_without_a_base_pointer_is_not_sent(firmware, blob, tmp_path):
    """Fast scratch declared, but mx_ethosu_run gets two base pointers (the driver sets BASEP2 to 0)."""
    elf, _ = firmware
    setup_run(tmp_path, blob, jobs=2, fast=4096, bases=2)
    with NpuSeamServer(tmp_path, lambda w, r: npu_seam.OK) as seam:
        result = run(elf, tmp_path)
    text = result.uart_text
    assert "mx: npu seam: job 1: a declared region has no base pointer or passes 4 GiB" in text, text
    assert "mx: npu seam: job 2: a declared region" in text  # not a channel error: nothing was closed
    assert "seam: job 2 -22 " in text and result.exit_code == 2
    assert seam.sessions == 0 and seam.jobs == []  # the channel was never opened


@pytest.mark.slow
@needs_qemu
def test_no_host_fails_the_job_at_once(firmware, blob, tmp_path):
    elf, _ = firmware
    setup_run(tmp_path, blob, jobs=2)
    result = run(elf, tmp_path, timeout=10)
    text = result.uart_text
    assert "mx: npu seam: job 1: no host: cannot open npu_reply.fifo" in text, text
    assert "mx: npu seam: job 2: the channel was closed by an earlier error" in text
    assert "seam: job 1 -22 " in text and "seam: job 2 -22 " in text and result.exit_code == 2
    assert not (tmp_path / "npu_job.fifo").exists()  # the firmware created no stray file
    assert result.seconds < 5


@pytest.mark.slow
@needs_qemu
def test_host_that_never_answers_ends_in_the_runs_timeout(firmware, blob, tmp_path):
    """Stale FIFOs and no server: the firmware waits in SYS_OPEN; the run's timeout kills QEMU."""
    from mcu_export.firmware.results import FirmwareTimeout

    elf, _ = firmware
    setup_run(tmp_path, blob)
    os.mkfifo(tmp_path / npu_seam.JOB_PIPE)
    os.mkfifo(tmp_path / npu_seam.REPLY_PIPE)
    start = time.monotonic()
    with pytest.raises(FirmwareTimeout, match="did not exit within 2 s"):
        run(elf, tmp_path, timeout=2)
    assert time.monotonic() - start < 6


@pytest.mark.slow
@needs_qemu
def test_round_trip_time(firmware, blob, tmp_path, capsys):
    """20 jobs with a 32 KB scratch, with the payload's 1-byte weights and with 256 KB of them."""
    elf, _ = firmware
    per_job, ticks = {}, {}
    for weights in (0, 256 * 1024):
        work = tmp_path / str(weights)
        setup_run(work, blob, jobs=20, scratch=32 * 1024, weights=weights, fast=4096)
        with NpuSeamServer(work, lambda words, regions: npu_seam.OK) as seam:
            result = run(elf, work)
        assert result.exit_code == 0, result.uart_text
        starts = [r.received for r in seam.jobs]
        assert len(starts) == 20
        assert seam.jobs[0].job.sizes[:3] == (weights or len(blob.weight_data), 32 * 1024, 4096)
        per_job[weights] = (starts[-1] - starts[0]) / 19
        ticks[weights] = done_line(result.uart_text)["ticks"]
    with capsys.disabled():
        print(f"\nnpu seam guest ticks for 20 jobs: {ticks}")
        print(
            f"\nnpu seam round trip per job: {', '.join(f'{w // 1024} KB weights {t * 1e3:.2f} ms' for w, t in per_job.items())}"
        )
    assert max(per_job.values()) < 0.25
