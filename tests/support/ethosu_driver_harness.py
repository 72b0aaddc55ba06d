"""The host build of boards/ethosu/ driven through ctypes, shared by test_ethosu_driver.py and
test_ethosu_driver_malformed.py: the register map, the test-side C shim, the register file playing the NPU."""

import ctypes
import os
import struct
import subprocess
from pathlib import Path

import pytest

from ethosu_graphs import max_pool_graph  # tests/support

ROOT = Path(__file__).resolve().parents[2]
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
# The PMU (U55/U65 offsets) and what the driver writes to count a job's cycles (ethosu_pmu.h).
PMCR, PMCNTENSET, PMCNTENCLR, PMCCNTR, PMCCNTR_HI, PMCCNTR_CFG = 0x180, 0x184, 0x188, 0x1A0, 0x1A4, 0x1A8
PMCR_CNT_EN, PMCR_CYCLE_CNT_RST, PMCNT_CYCLE = 1, 4, 1 << 31
PMU_START = [
    (PMCNTENCLR, PMCNT_CYCLE),
    (PMCCNTR_CFG, 0),
    (PMCR, PMCR_CNT_EN | PMCR_CYCLE_CNT_RST),
    (PMCNTENSET, PMCNT_CYCLE),
]
PMU_STOP = [(PMCNTENCLR, PMCNT_CYCLE)]

# The NPUs the register file plays: ID as Arm's header resets it, CONFIG as Vela compiles for that configuration.
U55_128 = (0x10104201, 0x00001807)  # arch 1.1.0; U55, 128 MACs (log2 7), 24 KB SHRAM
U65_256 = (0x10066001, 0x10003008)  # arch 1.0.6; U65, 256 MACs
U85_256 = (0x20007001, 0x20000118)  # arch 2.0.0 (ethosu85_interface.h's reset ID); U85, 256 MACs, 2 SRAM ports

E = dict(
    OK=0, ARG=-1, STATE=-2, PRODUCT=-3, CONFIG=-4, RESET_TIMEOUT=-5, PROT=-6, PAYLOAD_SIZE=-7, TAG=-8,
    TRUNCATED=-9, STREAM_LENGTH=-10, ACTION=-11, STREAM_COUNT=-12, OPT_CONFIG=-13, OPT_ARCH=-14, ALIGN=-15,
    ADDRESS=-16, BUSY=-17, BUS=-18, CMD_PARSE=-19, WEIGHT_DECODER=-20, ECC=-21, NOT_ENDED=-22, TIMEOUT=-23,
    BRANCH=-24, OPT_PRODUCT=-25,
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
uint64_t shim_cycles(const mx_ethosu *npu) { return npu->cycles; }
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
void shim_mem_attr(mx_ethosu_config *c, int i, int domain, int port, int memtype) {
  c->mem_attr[i] = (mx_ethosu_mem_attr){(uint8_t)domain, (uint8_t)port, (uint8_t)memtype};
}
void shim_axi_port(mx_ethosu_config *c, int ext, int beats, int reads, int writes) {
  mx_ethosu_axi_port p = {(uint8_t)beats, (uint8_t)reads, (uint8_t)writes};
  if (ext) c->axi_ext = p; else c->axi_sram = p;
}
void shim_mac_step(mx_ethosu_config *c, int cycles) { c->mac_step_cycles = (uint8_t)cycles; }
int shim_address_bits(const mx_ethosu_config *c) { return c->address_bits; }
uint32_t shim_job_config(const mx_ethosu *npu) { return npu->job_config; }
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
    "mx_ethosu_product_name": (ctypes.c_char_p, [ctypes.c_uint]),
    "mx_ethosu_pmu_offset": (U32, [ctypes.c_uint]),
    "mx_ethosu_pmu_start": (None, [P, ctypes.c_uint]),
    "mx_ethosu_pmu_stop": (U64, [P, ctypes.c_uint]),
    "mx_ethosu_ram_init": (None, [P, U32, U32]),
    "mx_ethosu_ram_set_hooks": (None, [P, HOOK, HOOK, P]),
    "mx_ethosu_ram_size": (SZ, []),
    "mx_ethosu_ram_peek": (U32, [P, U32]),
    "mx_ethosu_ram_poke": (None, [P, U32, U32]),
    "mx_ethosu_ram_count_cycles": (None, [P, U64]),
    "mx_ethosu_ram_reads": (U32, [P, U32]),
    "mx_ethosu_ram_writes": (U32, [P]),
    "mx_ethosu_ram_write_at": (I32, [P, U32, ctypes.POINTER(U32), ctypes.POINTER(U32)]),
    "mx_ethosu_ram_clear_log": (None, [P]),
    "mx_ethosu_ram_bad_accesses": (U32, [P]),
    "shim_npu_size": (SZ, []),
    "shim_config_size": (SZ, []),
    "shim_status": (U32, [P]),
    "shim_cycles": (U64, [P]),
    "shim_ready": (I32, [P]),
    "shim_idles": (U32, []),
    "shim_axi": (None, [P, I32, I32, I32, I32, I32]),
    "shim_region": (None, [P, I32, I32]),
    "shim_misc": (None, [P, I32, I32, I32, I32, I32, U32]),
    "shim_wait": (None, [P, I32, I32, I32]),
    "shim_mem_attr": (None, [P, I32, I32, I32, I32]),
    "shim_axi_port": (None, [P, I32, I32, I32, I32]),
    "shim_mac_step": (None, [P, I32]),
    "shim_address_bits": (I32, [P]),
    "shim_job_config": (U32, [P]),
}


def build_lib(tmp_path_factory):
    """The driver, its RAM register file and the shim, built as one shared library for ctypes."""
    out = tmp_path_factory.mktemp("ethosu_driver")
    (out / "shim.c").write_text(SHIM_C)
    drivers = ("ethosu_driver.c", "ethosu_u85.c", "ethosu_pmu.c", "ethosu_io_ram.c", "ethosu_regfile.c")
    sources = [DRIVER / f for f in drivers]
    sources.append(out / "shim.c")
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


def compile_payloads(accelerators=("ethos-u55-128", "ethos-u65-256", "ethos-u55-256")):
    """Vela's command data for a max pool, per accelerator."""
    pytest.importorskip("tosa_serializer")
    from mcu_export.ethosu.vela import compile_tosa

    return {a: compile_tosa(max_pool_graph(), a).blob.cmd_data for a in accelerators}


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


def counting(cycles):
    """A job that ends well after `cycles` NPU cycles, counted by the register file's PMU."""

    def job(npu):
        npu.lib.mx_ethosu_ram_count_cycles(npu.io, cycles)
        complete(npu)

    return job


def fault(bits):
    return lambda npu: npu.poke(STATUS, bits | IRQ | (8 << 12))  # faulting channel 8 (OFM write)


def default_init_writes(product):
    reads, writes = (64, 32) if product == 1 else (32, 16)
    axi = ((reads - 1) << 16) | ((writes - 1) << 24)
    region1 = 2 if product == 1 else 0
    regioncfg = 3 | (region1 << 2) | sum(1 << (2 * r) for r in range(2, 8))
    return [(RESET, 1), *((a, axi) for a in AXI_LIMIT), (QCONFIG, 2), (REGIONCFG, regioncfg), (CMD, Q_BITS)]
