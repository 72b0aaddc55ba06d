"""The Ethos-U55/U65 driver in boards/ethosu/, built for the host against its register file in RAM and driven
through ctypes: the registers init programs, what a run of a real Vela payload hands the NPU (the start hook
stands for the NPU: it sees the job and sets STATUS), faults and timeouts turned into errors with a soft reset,
malformed payloads refused before any register is touched. The same cases again under ASan/UBSan, and the
device files built for the Cortex-M55."""

import ctypes
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from ethosu_graphs import max_pool_graph  # tests/support
from mcu_export.ethosu.payload import parse

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "boards" / "ethosu"
SANITIZE = os.environ.get("MX_ETHOSU_SANITIZE") == "1"

# Registers (byte offsets; Arm's ethosu55_interface.h) and the bits the tests set or read.
ID, STATUS, CMD, RESET, QBASE, QBASE_HI, QCONFIG, QSIZE, PROT, CONFIG = (
    0x00, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x1C, 0x20, 0x24, 0x28,
)  # fmt: skip
REGIONCFG = 0x3C
AXI_LIMIT = [0x40 + 4 * n for n in range(4)]
BASEP = [0x80 + 8 * n for n in range(8)]
RUNNING, IRQ, BUS_ERROR, RESET_BUSY, PARSE_ERROR, END, WD_FAULT, ECC_FAULT = (1 << b for b in (0, 1, 2, 3, 4, 5, 7, 8))
START, CLEAR_IRQ, Q_BITS = 1, 2, 0xC

# The NPUs the register file plays: ID as Arm's header resets it, CONFIG as Vela compiles for that configuration.
U55_128 = (0x10104201, 0x00001807)  # arch 1.1.0; U55, 128 MACs (log2 7), 24 KB SHRAM
U65_256 = (0x10066001, 0x10003008)  # arch 1.0.6; U65, 256 MACs

E = dict(
    OK=0, ARG=-1, STATE=-2, PRODUCT=-3, CONFIG=-4, RESET_TIMEOUT=-5, PROT=-6, PAYLOAD_SIZE=-7, TAG=-8,
    TRUNCATED=-9, STREAM_LENGTH=-10, ACTION=-11, STREAM_COUNT=-12, OPT_CONFIG=-13, OPT_ARCH=-14, ALIGN=-15,
    ADDRESS=-16, BUSY=-17, BUS=-18, CMD_PARSE=-19, WEIGHT_DECODER=-20, ECC=-21, NOT_ENDED=-22, TIMEOUT=-23,
)  # fmt: skip

# Test-side C: sizes and config setters, so Python does not mirror the structs' layout; a fake tick source.
SHIM_C = r"""
#include "ethosu_driver.h"
#include "ethosu_io_ram.h"

static uint64_t now;
static uint32_t idles;
static uint64_t tick10(void) { return now += 10; }
static void idle(void) { idles++; }

size_t shim_npu_size(void) { return sizeof(mx_ethosu); }
size_t shim_config_size(void) { return sizeof(mx_ethosu_config); }
uint32_t shim_status(const mx_ethosu *npu) { return npu->status; }
int shim_ready(const mx_ethosu *npu) { return npu->ready; }
uint32_t shim_idles(void) { return idles; }
void shim_axi(mx_ethosu_config *c, int i, int beats, int memtype, int reads, int writes) {
  c->axi_limit[i] = (mx_ethosu_axi_limit){(uint8_t)beats, (uint8_t)memtype, (uint8_t)reads, (uint8_t)writes};
}
void shim_region(mx_ethosu_config *c, int region, int limit) { c->region_limit[region] = (uint8_t)limit; }
void shim_misc(mx_ethosu_config *c, int non_secure, int user, int cmd_limit, int address_bits, int keep_powered,
               uint32_t reset_budget) {
  c->non_secure = non_secure;
  c->user = user;
  c->cmd_limit = (uint8_t)cmd_limit;
  c->address_bits = (uint8_t)address_bits;
  c->keep_powered = keep_powered;
  c->reset_budget = reset_budget;
}
void shim_wait(mx_ethosu_config *c, int irq, int ticks, int use_idle) {
  c->irq = irq;
  c->ticks = ticks ? tick10 : 0;
  c->idle = use_idle ? idle : 0;
  idles = 0;
}
"""

HOOK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
P, U32, U64, I32, SZ = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int, ctypes.c_size_t
SIGNATURES = {
    "mx_ethosu_init": (I32, [P, P, P]),
    "mx_ethosu_run": (I32, [P, P, SZ, P, I32, U32]),
    "mx_ethosu_reset": (I32, [P]),
    "mx_ethosu_irq_handler": (None, [P]),
    "mx_ethosu_strerror": (ctypes.c_char_p, [I32]),
    "mx_ethosu_config_default": (None, [P, ctypes.c_uint]),
    "mx_ethosu_ram_init": (None, [P, U32, U32]),
    "mx_ethosu_ram_set_hooks": (None, [P, HOOK, HOOK, P]),
    "mx_ethosu_ram_size": (SZ, []),
    "mx_ethosu_ram_peek": (U32, [P, U32]),
    "mx_ethosu_ram_poke": (None, [P, U32, U32]),
    "mx_ethosu_ram_reads": (U32, [P, U32]),
    "mx_ethosu_ram_writes": (U32, [P]),
    "mx_ethosu_ram_write_at": (I32, [P, U32, ctypes.POINTER(U32), ctypes.POINTER(U32)]),
    "mx_ethosu_ram_clear_log": (None, [P]),
    "mx_ethosu_ram_bad_accesses": (U32, [P]),
    "shim_npu_size": (SZ, []),
    "shim_config_size": (SZ, []),
    "shim_status": (U32, [P]),
    "shim_ready": (I32, [P]),
    "shim_idles": (U32, []),
    "shim_axi": (None, [P, I32, I32, I32, I32, I32]),
    "shim_region": (None, [P, I32, I32]),
    "shim_misc": (None, [P, I32, I32, I32, I32, I32, U32]),
    "shim_wait": (None, [P, I32, I32, I32]),
}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    out = tmp_path_factory.mktemp("ethosu_driver")
    (out / "shim.c").write_text(SHIM_C)
    sources = [DRIVER / "ethosu_driver.c", DRIVER / "ethosu_io_ram.c", DRIVER / "ethosu_regfile.c", out / "shim.c"]
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-shared", "-fPIC", "-O1", "-g"]
    if SANITIZE:
        flags += ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
    so = out / "libmx_ethosu.so"
    proc = subprocess.run(
        ["cc", *flags, f"-I{DRIVER}", *map(str, sources), "-o", str(so)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    dll = ctypes.CDLL(str(so))
    for name, (restype, argtypes) in SIGNATURES.items():
        fn = getattr(dll, name)
        fn.restype, fn.argtypes = restype, argtypes
    return dll


@pytest.fixture(scope="module")
def payloads():
    pytest.importorskip("tosa_serializer")
    from mcu_export.ethosu.vela import compile_tosa

    return {
        a: compile_tosa(max_pool_graph(), a).blob.cmd_data for a in ("ethos-u55-128", "ethos-u65-256", "ethos-u55-256")
    }


def words(data: bytes):
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def pack(ws) -> bytes:
    return struct.pack(f"<{len(ws)}I", *ws)


def stream_offset(cmd: bytes) -> int:
    """Byte offset of the first command word: after the COMMAND_STREAM action (2)."""
    ws, at = words(cmd), 1
    while ws[at] & 0xFF != 2:
        at += 3 if ws[at] & 0xFF == 1 else 1
    return 4 * (at + 1)


class Buffer:
    """Bytes at an address with a chosen remainder modulo 16 (the driver wants the command words 16-aligned)."""

    def __init__(self, data: bytes, misalign: int = 0):
        self.raw = ctypes.create_string_buffer(len(data) + 32)
        base = ctypes.addressof(self.raw)
        self.address = base + (-base % 16) + misalign
        ctypes.memmove(self.address, data, len(data))
        self.size = len(data)


class Npu:
    """One register file + driver state; `job` (set by a test) plays the NPU when CMD's start bit is written."""

    def __init__(self, lib, hw=U55_128):
        self.lib = lib
        self.io = ctypes.create_string_buffer(lib.mx_ethosu_ram_size())
        self.state = ctypes.create_string_buffer(lib.shim_npu_size())
        lib.mx_ethosu_ram_init(self.io, *hw)
        self.product = hw[1] >> 28
        self.seen = []  # the register state at each start
        self.job = complete
        self.on_reset = None
        self.resets = 0
        self._hooks = (HOOK(self._start), HOOK(self._reset))  # kept alive as long as the register file
        lib.mx_ethosu_ram_set_hooks(self.io, *self._hooks, None)

    def _start(self, _io, _ctx):
        self.seen.append({off: self.peek(off) for off in range(0, 0x100, 4)})
        if self.job is not None:
            self.job(self)

    def _reset(self, _io, _ctx):
        self.resets += 1
        if self.on_reset is not None:
            self.on_reset(self)

    def peek(self, off):
        return self.lib.mx_ethosu_ram_peek(self.io, off)

    def poke(self, off, value):
        self.lib.mx_ethosu_ram_poke(self.io, off, value)

    def config(self, address_bits=64, **misc):
        """The product's defaults (mx_ethosu_config_default), with host-sized addresses unless told."""
        cfg = ctypes.create_string_buffer(self.lib.shim_config_size())
        self.lib.mx_ethosu_config_default(cfg, self.product)
        m = dict(non_secure=0, user=0, cmd_limit=2, address_bits=address_bits, keep_powered=0, reset_budget=100000)
        m.update(misc)
        self.lib.shim_misc(cfg, *m.values())
        return cfg

    def init(self, cfg="default"):
        return self.lib.mx_ethosu_init(self.state, self.io, self.config() if cfg == "default" else cfg)

    def run(self, buf: Buffer, bases=(0x60000000, 0x21000000, 0x21100000), budget=1000, size=None):
        arr = (ctypes.c_uint64 * max(1, len(bases)))(*bases)
        n = buf.size if size is None else size
        return self.lib.mx_ethosu_run(self.state, buf.address, n, arr, len(bases), budget)

    def writes(self):
        out, off, val = [], U32(), U32()
        for n in range(self.lib.mx_ethosu_ram_writes(self.io)):
            assert self.lib.mx_ethosu_ram_write_at(self.io, n, ctypes.byref(off), ctypes.byref(val)) == 0
            out.append((off.value, val.value))
        return out

    def clear_log(self):
        self.lib.mx_ethosu_ram_clear_log(self.io)


def complete(npu):
    npu.poke(STATUS, END | IRQ)  # stopped at the end of the stream, interrupt raised


def fault(bits):
    return lambda npu: npu.poke(STATUS, bits | IRQ | (8 << 12))  # faulting channel 8 (OFM write)


def default_init_writes(product):
    reads, writes = (64, 32) if product == 1 else (32, 16)
    axi = ((reads - 1) << 16) | ((writes - 1) << 24)
    region1 = 2 if product == 1 else 0
    regioncfg = 3 | (region1 << 2) | sum(1 << (2 * r) for r in range(2, 8))
    return [(RESET, 1), *((a, axi) for a in AXI_LIMIT), (QCONFIG, 2), (REGIONCFG, regioncfg), (CMD, Q_BITS)]


# ---- init ----


@pytest.mark.parametrize("hw", [U55_128, U65_256], ids=["u55", "u65"])
def test_init_resets_then_programs_axi_limits_regions_and_idle_gating(lib, hw):
    npu = Npu(lib, hw)
    assert lib.mx_ethosu_init(npu.state, npu.io, None) == 0  # the product's defaults, as Arm's driver's
    assert npu.writes() == default_init_writes(npu.product)
    assert npu.peek(PROT) == 1 and npu.resets == 1  # secure, privileged
    assert lib.shim_ready(npu.state) == 1 and lib.mx_ethosu_ram_bad_accesses(npu.io) == 0


def test_init_applies_a_custom_configuration(lib):
    npu = Npu(lib)
    cfg = npu.config(non_secure=1, user=1, cmd_limit=1, keep_powered=1)
    lib.shim_axi(cfg, 0, 2, 11, 8, 4)  # 256-byte bursts, write-back read+write allocate, 8 reads, 4 writes
    lib.shim_axi(cfg, 3, 1, 3, 32, 16)
    for region, limit in enumerate([2, 3, 0, 1, 2, 3, 0, 1]):
        lib.shim_region(cfg, region, limit)
    assert npu.init(cfg) == 0
    assert npu.peek(PROT) == 0b10  # non-secure, user
    assert npu.peek(AXI_LIMIT[0]) == 2 | (11 << 4) | (7 << 16) | (3 << 24)
    assert npu.peek(AXI_LIMIT[3]) == 1 | (3 << 4) | (31 << 16) | (15 << 24)
    assert npu.peek(REGIONCFG) == 0b01_00_11_10_01_00_11_10 and npu.peek(QCONFIG) == 1
    assert npu.peek(CMD) == 0  # keep_powered: Q-interfaces never enabled


@pytest.mark.parametrize(
    "hw",
    [(0, 0), (0x20000001, 0x20000000), (0x10104201, 0x30001807)],
    ids=["nothing-there(RAZ)", "u85", "product-3"],
)
def test_init_refuses_what_is_not_a_u55_or_u65_without_writing(lib, hw):
    npu = Npu(lib, hw)
    assert lib.mx_ethosu_init(npu.state, npu.io, None) == E["PRODUCT"]
    assert npu.writes() == [] and lib.shim_ready(npu.state) == 0


@pytest.mark.parametrize(
    "change",
    [
        lambda lib, c: lib.shim_axi(c, 1, 0, 0, 33, 16),  # U55: at most 32 outstanding reads
        lambda lib, c: lib.shim_axi(c, 1, 0, 0, 32, 17),
        lambda lib, c: lib.shim_axi(c, 2, 0, 0, 0, 1),
        lambda lib, c: lib.shim_axi(c, 2, 3, 0, 1, 1),  # max_beats 0..2
        lambda lib, c: lib.shim_axi(c, 2, 0, 12, 1, 1),  # memtype 0..11
        lambda lib, c: lib.shim_region(c, 7, 4),
        lambda lib, c: lib.shim_misc(c, 0, 0, 4, 32, 0, 10),
        lambda lib, c: lib.shim_misc(c, 0, 0, 2, 31, 0, 10),
    ],
    ids=["reads", "writes", "no-reads", "beats", "memtype", "region", "qconfig", "address-bits"],
)
def test_init_refuses_a_configuration_out_of_range(lib, change):
    npu = Npu(lib)
    cfg = npu.config()
    change(lib, cfg)
    assert npu.init(cfg) == E["CONFIG"] and npu.writes() == []


def test_init_times_out_on_a_stuck_reset_and_checks_prot(lib):
    npu = Npu(lib)
    npu.on_reset = lambda n: n.poke(STATUS, RESET_BUSY)
    assert npu.init(npu.config(reset_budget=20)) == E["RESET_TIMEOUT"]
    assert lib.mx_ethosu_ram_reads(npu.io, STATUS) == 1 + 21  # the wait at init, then the budget's polls
    npu = Npu(lib)
    npu.on_reset = lambda n: n.poke(PROT, 0)  # the NPU stays user-level
    assert npu.init() == E["PROT"] and lib.shim_ready(npu.state) == 0


# ---- a run ----


@pytest.mark.parametrize(
    "accelerator, hw", [("ethos-u55-128", U55_128), ("ethos-u65-256", U65_256)], ids=["u55", "u65"]
)
def test_run_hands_the_npu_the_command_stream_and_regions_then_completes(lib, payloads, accelerator, hw):
    cmd = payloads[accelerator]
    npu = Npu(lib, hw)
    assert npu.init() == 0
    buf = Buffer(cmd)
    first, nbytes = buf.address + stream_offset(cmd), parse(cmd).stream_words * 4
    bases = (0x60000000, 0x21000000, 0x31000000)

    def job(n):
        regs = n.seen[-1]
        # What a simulator gets: the command words at QBASE, QSIZE bytes of them, the regions' bases.
        qbase = regs[QBASE] | regs[QBASE_HI] << 32
        assert ctypes.string_at(qbase, regs[QSIZE]) == cmd[stream_offset(cmd) :]
        assert not regs[STATUS] & END  # the previous job's end flag was cleared by the QBASE/QSIZE writes
        complete(n)

    npu.job = job
    for _ in range(2):
        npu.clear_log()
        assert npu.run(buf, bases) == 0
        (regs,) = npu.seen[-1:]
        assert regs[QBASE] | regs[QBASE_HI] << 32 == first and regs[QSIZE] == nbytes == len(cmd) - stream_offset(cmd)
        assert [regs[b] | regs[b + 4] << 32 for b in BASEP] == [*bases, 0, 0, 0, 0, 0]
        assert regs[QCONFIG] == 2 and regs[REGIONCFG] == npu.peek(REGIONCFG) != 0
        basep = [w for b, a in zip(BASEP, [*bases, 0, 0, 0, 0, 0]) for w in ((b, a & 0xFFFFFFFF), (b + 4, a >> 32))]
        expected = [
            (QBASE, first & 0xFFFFFFFF), (QBASE_HI, first >> 32), (QSIZE, nbytes), (QCONFIG, 2), *basep,
            (REGIONCFG, regs[REGIONCFG]), (CMD, START), (CMD, CLEAR_IRQ | Q_BITS),
        ]  # fmt: skip
        assert npu.writes() == expected  # no reset after a good job
        assert npu.peek(STATUS) & IRQ == 0 and npu.peek(CMD) == Q_BITS
    assert len(npu.seen) == 2 and npu.resets == 1


def test_run_on_a_32_bit_npu_writes_no_high_words(lib, payloads):
    npu = Npu(lib)
    assert npu.init(npu.config(address_bits=32)) == 0
    cmd = payloads["ethos-u55-128"]
    buf = Buffer(cmd)
    npu.clear_log()
    if buf.address + 64 >= 1 << 32:  # a host pointer past 4 GiB cannot be a U55 address
        assert npu.run(buf) == E["ADDRESS"] and npu.writes() == []
    else:  # pragma: no cover (hosts whose heap sits below 4 GiB)
        assert npu.run(buf) == 0 and all(o not in (QBASE_HI, *(b + 4 for b in BASEP)) for o, _ in npu.writes())


@pytest.mark.parametrize(
    "bits, error",
    [(BUS_ERROR, "BUS"), (PARSE_ERROR, "CMD_PARSE"), (WD_FAULT, "WEIGHT_DECODER"), (ECC_FAULT, "ECC"),
     (BUS_ERROR | PARSE_ERROR | END, "BUS")],
    ids=["bus", "parse", "weight-decoder", "ecc", "bus-first"],
)  # fmt: skip
def test_a_fault_becomes_its_error_and_a_soft_reset_readies_the_next_run(lib, payloads, bits, error):
    npu = Npu(lib)
    assert npu.init() == 0
    buf = Buffer(payloads["ethos-u55-128"])
    npu.job = fault(bits)
    npu.clear_log()
    assert npu.run(buf) == E[error]
    assert lib.shim_status(npu.state) & bits == bits and (lib.shim_status(npu.state) >> 12) & 0xF == 8
    log = npu.writes()
    after_start = log[log.index((CMD, START)) + 1 :]
    assert after_start == [(CMD, CLEAR_IRQ | Q_BITS), *default_init_writes(0)]  # clear, reset, reconfigure
    assert npu.resets == 2 and npu.peek(STATUS) == 0 and npu.peek(PROT) == 1
    npu.job = complete
    assert npu.run(buf) == 0 and npu.resets == 2


def test_a_stop_before_the_end_of_the_stream_is_an_error(lib, payloads):
    npu = Npu(lib)
    assert npu.init() == 0
    npu.job = lambda n: n.poke(STATUS, IRQ)
    assert npu.run(Buffer(payloads["ethos-u55-128"])) == E["NOT_ENDED"] and npu.resets == 2


@pytest.mark.parametrize("budget", [0, 1, 50])
def test_no_completion_is_a_timeout_after_the_budget_in_polls(lib, payloads, budget):
    npu = Npu(lib)
    assert npu.init() == 0
    buf = Buffer(payloads["ethos-u55-128"])
    npu.job = None  # the NPU never finishes
    npu.clear_log()
    assert npu.run(buf, budget=budget) == E["TIMEOUT"]
    # STATUS reads: the busy check, budget + 1 polls, the last look, the reset's wait.
    assert lib.mx_ethosu_ram_reads(npu.io, STATUS) == 1 + (budget + 1) + 1 + 1
    assert npu.resets == 2 and (RESET, 1) in npu.writes()
    npu.job = complete
    assert npu.run(buf) == 0


def test_the_budget_can_be_in_ticks_with_an_idle_hook(lib, payloads):
    npu = Npu(lib)
    cfg = npu.config()
    lib.shim_wait(cfg, 0, 1, 1)  # poll STATUS; the clock advances 10 ticks each time it is read; idle between polls
    assert npu.init(cfg) == 0
    npu.job = None
    npu.clear_log()
    assert npu.run(Buffer(payloads["ethos-u55-128"]), budget=1000) == E["TIMEOUT"]
    assert lib.shim_idles() == 99  # 100 polls, 10 ticks apart
    assert lib.mx_ethosu_ram_reads(npu.io, STATUS) == 1 + 100 + 1 + 1


def test_completion_by_interrupt(lib, payloads):
    npu = Npu(lib)
    cfg = npu.config()
    lib.shim_wait(cfg, 1, 0, 1)
    assert npu.init(cfg) == 0
    buf = Buffer(payloads["ethos-u55-128"])

    def raise_irq(n):
        complete(n)
        lib.mx_ethosu_irq_handler(n.state)  # the board's vector calls it when the NPU's line goes high

    npu.job = raise_irq
    npu.clear_log()
    assert npu.run(buf) == 0 and lib.shim_idles() == 0
    log = npu.writes()
    assert log[log.index((CMD, START)) + 1 :] == [(CMD, CLEAR_IRQ), (CMD, CLEAR_IRQ | Q_BITS)]  # handler, then run
    assert lib.mx_ethosu_ram_reads(npu.io, STATUS) == 3  # busy check, the handler's, the run's
    npu.job = lambda n: (fault(BUS_ERROR)(n), lib.mx_ethosu_irq_handler(n.state))
    assert npu.run(buf) == E["BUS"]
    npu.job = None  # no interrupt: the run only checks the flag, idling in between
    assert npu.run(buf, budget=30) == E["TIMEOUT"] and lib.shim_idles() == 30


def test_a_busy_npu_is_not_started(lib, payloads):
    npu = Npu(lib)
    assert npu.init() == 0
    npu.poke(STATUS, RUNNING)
    npu.clear_log()
    assert npu.run(Buffer(payloads["ethos-u55-128"])) == E["BUSY"] and npu.writes() == [] and npu.seen == []


def test_a_failed_reset_leaves_the_driver_unready_until_reset(lib, payloads):
    npu = Npu(lib)
    assert npu.init(npu.config(reset_budget=5)) == 0
    buf = Buffer(payloads["ethos-u55-128"])
    npu.job = fault(BUS_ERROR)
    npu.on_reset = lambda n: n.poke(STATUS, RESET_BUSY)
    assert npu.run(buf) == E["RESET_TIMEOUT"] and lib.shim_ready(npu.state) == 0
    assert npu.run(buf) == E["STATE"]
    npu.on_reset, npu.job = None, complete
    npu.poke(STATUS, 0)  # the reset finishes at last
    assert lib.mx_ethosu_reset(npu.state) == 0 and npu.run(buf) == 0


def test_a_run_before_init_is_refused(lib, payloads):
    npu = Npu(lib)
    assert npu.run(Buffer(payloads["ethos-u55-128"])) == E["STATE"] and npu.writes() == []
    assert lib.mx_ethosu_reset(npu.state) == E["STATE"]


def test_the_24_bit_stream_length(lib):
    """Vela puts bits 16-23 of the stream's word count in the action's bits 8-15 (streams of 64 Ki words up)."""
    n = 0x10001
    cmd = pack([0x31504F43, 5, 5, (n & 0xFFFF) << 16 | (n >> 16) << 8 | 2, *([0] * n)])
    npu = Npu(lib)
    assert npu.init() == 0
    assert npu.run(Buffer(cmd)) == 0 and npu.seen[-1][QSIZE] == 4 * n


# ---- malformed payloads and arguments: refused before any register is touched ----


def _malformed(cmd: bytes):
    ws, at = words(cmd), stream_offset(cmd) // 4
    stream = ws[at:]
    tag, nop = 0x31504F43, 5
    return {
        "empty": (b"", "PAYLOAD_SIZE"),
        "not-words": (cmd[:-1], "PAYLOAD_SIZE"),
        "bad-tag": (b"COP2" + cmd[4:], "TAG"),
        "optimizer-config-cut": (cmd[:12], "TRUNCATED"),
        "stream-past-the-end": (cmd[:-4], "STREAM_LENGTH"),
        "empty-stream": (pack([tag, nop, nop, 2, *stream]), "STREAM_LENGTH"),  # length 0
        "unknown-action": (pack([*ws[:4], 3, *ws[5:]]), "ACTION"),  # Vela's ReadAPB debug action
        "no-stream": (pack(ws[:7]), "STREAM_COUNT"),
        "two-streams": (pack([*ws, nop, nop, nop, 1 << 16 | 2, 0]), "STREAM_COUNT"),
        "arch-too-new": (pack([*ws[:3], 0x10200000, *ws[4:]]), "OPT_ARCH"),  # 1.2.0 on a 1.1.0 NPU
        "arch-major": (pack([*ws[:3], 0x20000000, *ws[4:]]), "OPT_ARCH"),
        "other-product": (pack([*ws[:2], ws[2] | 1 << 28, *ws[3:]]), "OPT_CONFIG"),
        "cmd-stream-version": (pack([*ws[:2], ws[2] | 1 << 4, *ws[3:]]), "OPT_CONFIG"),
        "custom-dma": (pack([*ws[:2], ws[2] | 1 << 27, *ws[3:]]), "OPT_CONFIG"),
    }


def test_malformed_payloads_are_refused_without_touching_a_register(lib, payloads):
    cmd = payloads["ethos-u55-128"]
    npu = Npu(lib)
    assert npu.init() == 0
    for name, (data, error) in _malformed(cmd).items():
        npu.clear_log()
        got = npu.run(Buffer(data), size=len(data))
        assert (name, got) == (name, E[error])
        assert npu.writes() == [] and lib.mx_ethosu_ram_reads(npu.io, STATUS) == 0 and npu.seen == []
    # The SHRAM size is not compared (as in Arm's driver), the architecture patch level neither.
    ws = words(cmd)
    for ok in (pack([*ws[:2], ws[2] ^ 0x100, *ws[3:]]), pack([*ws[:3], ws[3] | 0xF0000, *ws[4:]])):
        assert npu.run(Buffer(ok)) == 0


def test_a_payload_for_another_configuration_is_refused(lib, payloads):
    npu = Npu(lib)  # a U55-128
    assert npu.init() == 0
    npu.clear_log()
    assert npu.run(Buffer(payloads["ethos-u55-256"])) == E["OPT_CONFIG"]
    assert npu.run(Buffer(payloads["ethos-u65-256"])) == E["OPT_CONFIG"]
    assert npu.writes() == [] and npu.seen == []


def test_bad_addresses_and_arguments_are_refused_without_touching_a_register(lib, payloads):
    cmd = payloads["ethos-u55-128"]
    npu = Npu(lib)
    assert npu.init() == 0
    npu.clear_log()
    assert npu.run(Buffer(cmd, misalign=4)) == E["ALIGN"]
    assert npu.run(Buffer(cmd), bases=(0x60000000, 0x21000008)) == E["ALIGN"]
    buf = Buffer(cmd)
    assert npu.run(buf, bases=tuple(range(0, 16 * 9, 16))) == E["ARG"]  # 9 regions
    assert lib.mx_ethosu_run(npu.state, buf.address, buf.size, None, 1, 10) == E["ARG"]
    assert lib.mx_ethosu_run(npu.state, None, 4, None, 0, 10) == E["ARG"]
    assert lib.mx_ethosu_run(None, buf.address, buf.size, None, 0, 10) == E["ARG"]
    assert lib.mx_ethosu_init(None, npu.io, None) == E["ARG"]
    assert npu.writes() == [] and npu.seen == []
    npu32 = Npu(lib)
    assert npu32.init(npu32.config(address_bits=32)) == 0
    npu32.clear_log()
    low = Buffer(cmd)
    if low.address < 1 << 32:  # pragma: no cover (hosts whose heap sits below 4 GiB)
        assert npu32.run(low, bases=(1 << 32,)) == E["ADDRESS"]
    else:
        assert npu32.run(low) == E["ADDRESS"]
    assert npu32.writes() == []
    assert lib.mx_ethosu_run(npu.state, buf.address, buf.size, None, 0, 10) == 0  # no regions at all is allowed


def test_every_error_has_its_own_message(lib):
    messages = {code: lib.mx_ethosu_strerror(code).decode() for code in E.values()}
    assert len(set(messages.values())) == len(E) and all(messages.values())
    assert lib.mx_ethosu_strerror(-24).decode() == lib.mx_ethosu_strerror(5).decode() == "unknown error"
    assert "unknown error" not in messages.values()
    header = (DRIVER / "ethosu_driver.h").read_text()
    assert all(f"MX_ETHOSU_E_{name} = {code}," in header for name, code in E.items() if code)


# ---- builds ----


@pytest.mark.slow
@pytest.mark.skipif(SANITIZE, reason="this is the sanitized run")
def test_the_same_cases_under_asan_and_ubsan():
    runtime = subprocess.run(["cc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(runtime) or not os.path.exists(runtime):
        pytest.skip("cc has no libasan")
    env = dict(os.environ, MX_ETHOSU_SANITIZE="1", LD_PRELOAD=runtime, ASAN_OPTIONS="detect_leaks=0")
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    # -s: a sanitizer's report goes to stderr and the process ends; pytest must not be holding it.
    cmd = [sys.executable, "-m", "pytest", __file__, "-q", "-s", "-p", "no:logging", "-p", "no:cacheprovider"]
    proc = subprocess.run([*cmd, "-m", "not slow"], cwd=ROOT, env=env, capture_output=True, text=True)
    tail = (proc.stdout + proc.stderr)[-3000:]
    assert proc.returncode == 0, tail
    assert " passed" in proc.stdout and "ERROR: AddressSanitizer" not in tail and "runtime error" not in tail


DEVICE_FILES = ["ethosu_driver.c", "ethosu_io_mmio.c"]


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs arm-none-eabi-gcc")
@pytest.mark.parametrize("source", DEVICE_FILES)
def test_the_device_files_build_for_the_cortex_m55(tmp_path, source):
    flags = ["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard", "-std=c11", "-Wall", "-Wextra", "-Werror"]
    obj = tmp_path / "out.o"
    proc = subprocess.run(
        ["arm-none-eabi-gcc", *flags, "-ffreestanding", "-Os", "-c", str(DRIVER / source), "-o", str(obj)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    undefined = subprocess.run(["arm-none-eabi-nm", "-u", str(obj)], capture_output=True, text=True).stdout.split()
    # No allocator, no libc beyond what a struct initialiser may call: only the io seam and memset.
    assert set(undefined[1::2]) <= {"mx_ethosu_io_read", "mx_ethosu_io_write", "memset"}


@pytest.mark.skipif(shutil.which("clang-format-16") is None, reason="needs clang-format-16")
def test_the_driver_is_formatted():
    files = sorted(map(str, DRIVER.glob("*.[ch]")))
    proc = subprocess.run(
        ["clang-format-16", "--dry-run", "--Werror", *files], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
