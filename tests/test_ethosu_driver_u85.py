"""The driver's Ethos-U85 path (boards/ethosu/ethosu_u85.c and the product-keyed parts of ethosu_driver.c), built
for the host against its register file in RAM and driven through ctypes as test_ethosu_driver.py drives the U55/U65
path: the registers init programs (MEM_ATTR, AXI_SRAM/AXI_EXT, POWER_CTRL where the U55 has AXI_LIMIT), what a run
of a real Vela U85 payload hands the NPU (40-bit base pointers: high words), the U85's faults (branch_fault; the
weight-decoder bit is reserved) turned into errors with a soft reset, timeouts, and payloads for another product.
No U85 exists here: these hold the driver to Arm's register descriptions, not to silicon."""

import pytest

from ethosu_driver_harness import (  # tests/support
    BASEP,
    BUS_ERROR,
    CLEAR_IRQ,
    CMD,
    ECC_FAULT,
    END,
    IRQ,
    PARSE_ERROR,
    PROT,
    Q_BITS,
    QBASE,
    QBASE_HI,
    QCONFIG,
    QSIZE,
    REGIONCFG,
    RESET,
    START,
    STATUS,
    U55_128,
    U85_256,
    WD_FAULT,
    Buffer,
    E,
    Npu,
    build_lib,
    compile_payloads,
    complete,
    fault,
    pack,
    stream_offset,
    words,
)

POWER_CTRL, MEM_ATTR, AXI_SRAM, AXI_EXT = 0x38, [0x40 + 4 * n for n in range(4)], 0x50, 0x54
BRANCH_FAULT = 1 << 9
U85 = 2


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return build_lib(tmp_path_factory)


@pytest.fixture(scope="module")
def payloads():
    return compile_payloads(("ethos-u85-256", "ethos-u85-512", "ethos-u55-128"))


def u85_init_writes(level=1):
    """Arm's ethosu_dev_soft_reset for the U85 with ethosu_config_u85.h's defaults, then ours: QCONFIG, REGIONCFG
    (the same entry numbers as the U55's) and CMD's idle Q bits."""
    sram = (12 - 1) | (16 - 1) << 8 | 2 << 16  # 12 reads, 16 writes, 256-byte bursts
    ext = (64 - 1) | (32 - 1) << 8 | 2 << 16
    mem_attr = [0, 0, 1 << 2, 1 << 2]  # entries 0, 1 on the SRAM port, 2, 3 on the external one
    regioncfg = 3 | sum(1 << (2 * r) for r in range(2, 8))
    return [
        (RESET, level), *zip(MEM_ATTR, mem_attr), (AXI_SRAM, sram), (AXI_EXT, ext), (POWER_CTRL, 0),
        (QCONFIG, 2), (REGIONCFG, regioncfg), (CMD, Q_BITS),
    ]  # fmt: skip


def ready_u85(lib, **cfg):
    npu = Npu(lib, U85_256)
    assert npu.init(npu.config(**cfg)) == 0
    return npu


# ---- init ----


def test_init_resets_then_programs_mem_attrs_axi_ports_power_and_regions(lib):
    npu = Npu(lib, U85_256)
    assert lib.mx_ethosu_init(npu.state, npu.io, None) == 0  # the U85's defaults, as Arm's driver's
    assert npu.writes() == u85_init_writes()
    assert npu.peek(PROT) == 1 and npu.resets == 1 and lib.shim_ready(npu.state) == 1
    assert lib.mx_ethosu_ram_bad_accesses(npu.io) == 0


def test_the_u85_defaults_are_40_bit_and_the_u55s_are_unchanged(lib):
    npu = Npu(lib, U85_256)
    cfg = npu.config()
    lib.mx_ethosu_config_default(cfg, U85)
    assert lib.shim_address_bits(cfg) == 40
    lib.mx_ethosu_config_default(cfg, 0)
    assert lib.shim_address_bits(cfg) == 32


def test_init_applies_a_custom_u85_configuration(lib):
    npu = Npu(lib, U85_256)
    cfg = npu.config(non_secure=1, user=1, cmd_limit=3)
    lib.shim_mem_attr(cfg, 0, 3, 1, 11)  # system domain, external port, write-back read+write allocate
    lib.shim_mem_attr(cfg, 3, 1, 0, 2)
    lib.shim_axi_port(cfg, 0, 0, 64, 32)  # SRAM ports: 64-byte bursts, the most the fields hold
    lib.shim_axi_port(cfg, 1, 1, 1, 1)  # external: 128-byte bursts, one of each
    lib.shim_mac_step(cfg, 63)
    assert npu.init(cfg) == 0
    assert npu.peek(PROT) == 0b10
    assert [npu.peek(a) for a in MEM_ATTR] == [3 | 1 << 2 | 11 << 4, 0, 1 << 2, 1 | 2 << 4]
    assert npu.peek(AXI_SRAM) == 63 | 31 << 8 and npu.peek(AXI_EXT) == 1 << 16
    assert npu.peek(POWER_CTRL) == 63 and npu.peek(QCONFIG) == 3


@pytest.mark.parametrize(
    "change",
    [
        lambda lib, c: lib.shim_mem_attr(c, 1, 4, 0, 0),  # domain 0..3
        lambda lib, c: lib.shim_mem_attr(c, 1, 0, 2, 0),  # port 0 (SRAM) or 1 (external)
        lambda lib, c: lib.shim_mem_attr(c, 1, 0, 0, 12),  # memtype 0..11
        lambda lib, c: lib.shim_axi_port(c, 0, 0, 65, 16),  # at most 64 outstanding reads
        lambda lib, c: lib.shim_axi_port(c, 1, 0, 64, 33),  # at most 32 writes
        lambda lib, c: lib.shim_axi_port(c, 1, 0, 0, 1),
        lambda lib, c: lib.shim_axi_port(c, 0, 3, 12, 16),  # max_beats 0..2
        lambda lib, c: lib.shim_mac_step(c, 64),  # 6 bits
        lambda lib, c: lib.shim_region(c, 7, 4),
    ],
    ids=["domain", "port", "memtype", "reads", "writes", "no-reads", "beats", "mac-step", "region"],
)
def test_init_refuses_a_u85_configuration_out_of_range(lib, change):
    npu = Npu(lib, U85_256)
    cfg = npu.config()
    change(lib, cfg)
    assert npu.init(cfg) == E["CONFIG"] and npu.writes() == []


def test_the_u55_axi_limits_are_not_checked_on_a_u85(lib):
    """The U85 has no AXI_LIMITs: a U85 configuration need not fill them in."""
    npu = Npu(lib, U85_256)
    cfg = npu.config()
    lib.shim_axi(cfg, 0, 0, 0, 0, 0)  # would be out of range on a U55
    assert npu.init(cfg) == 0


# ---- a run ----


def test_run_hands_the_npu_a_u85_payload_with_40_bit_base_pointers(lib, payloads):
    cmd = payloads["ethos-u85-256"]
    npu = ready_u85(lib)
    buf = Buffer(cmd)
    first, nbytes = buf.address + stream_offset(cmd), len(cmd) - stream_offset(cmd)
    bases = (0xAB_6000_0000, 0x01_2100_0000, 0xFF_FFFF_FFF0)  # the high words of 40-bit addresses
    npu.clear_log()
    assert npu.run(buf, bases) == 0
    (regs,) = npu.seen
    assert regs[QBASE] | regs[QBASE_HI] << 32 == first and regs[QSIZE] == nbytes
    assert [regs[b] | regs[b + 4] << 32 for b in BASEP] == [*bases, 0, 0, 0, 0, 0]
    basep = [w for b, a in zip(BASEP, [*bases, 0, 0, 0, 0, 0]) for w in ((b, a & 0xFFFFFFFF), (b + 4, a >> 32))]
    expected = [
        (QBASE, first & 0xFFFFFFFF), (QBASE_HI, first >> 32), (QSIZE, nbytes), (QCONFIG, 2), *basep,
        (REGIONCFG, npu.peek(REGIONCFG)), (CMD, START), (CMD, CLEAR_IRQ | Q_BITS),
    ]  # fmt: skip
    assert npu.writes() == expected and npu.resets == 1  # Arm's U85 run order; no reset after a good job
    assert lib.shim_job_config(npu.state) == words(cmd)[2]


def test_a_40_bit_npu_refuses_a_wider_address_without_writing(lib, payloads):
    npu = ready_u85(lib, address_bits=40)
    buf = Buffer(payloads["ethos-u85-256"])
    npu.clear_log()
    if buf.address >= 1 << 40:  # a host pointer is the command stream's address: past 40 bits on most hosts
        assert npu.run(buf) == E["ADDRESS"]
    else:  # pragma: no cover
        assert npu.run(buf, bases=(1 << 40,)) == E["ADDRESS"]
    assert npu.writes() == [] and npu.seen == []


@pytest.mark.parametrize(
    "bits, error",
    [(BUS_ERROR, "BUS"), (PARSE_ERROR, "CMD_PARSE"), (BRANCH_FAULT, "BRANCH"), (ECC_FAULT, "ECC"),
     (BRANCH_FAULT | ECC_FAULT | END, "BRANCH"), (PARSE_ERROR | BRANCH_FAULT, "CMD_PARSE")],
    ids=["bus", "parse", "branch", "ecc", "branch-before-ecc", "parse-before-branch"],
)  # fmt: skip
def test_a_u85_fault_becomes_its_error_and_a_soft_reset_reprograms_the_u85(lib, payloads, bits, error):
    npu = ready_u85(lib)
    buf = Buffer(payloads["ethos-u85-256"])
    npu.job = fault(bits)
    npu.clear_log()
    assert npu.run(buf) == E[error]
    log = npu.writes()
    assert log[log.index((CMD, START)) + 1 :] == [(CMD, CLEAR_IRQ | Q_BITS), *u85_init_writes()]
    assert npu.resets == 2 and npu.peek(STATUS) == 0
    npu.job = complete
    assert npu.run(buf) == 0 and npu.resets == 2


def test_status_bits_reserved_on_one_product_are_not_faults_there(lib, payloads):
    """Bit 7 is the U55/U65's weight-decoder fault but reserved on the U85; bit 9 the reverse (branch_fault)."""
    npu = ready_u85(lib)
    npu.job = lambda n: n.poke(STATUS, END | IRQ | WD_FAULT)
    assert npu.run(Buffer(payloads["ethos-u85-256"])) == 0 and npu.resets == 1
    u55 = Npu(lib, U55_128)
    assert u55.init() == 0
    u55.job = lambda n: n.poke(STATUS, END | IRQ | BRANCH_FAULT)
    assert u55.run(Buffer(payloads["ethos-u55-128"])) == 0 and u55.resets == 1


def test_a_u85_fault_without_an_interrupt_still_ends_the_wait(lib, payloads):
    npu = ready_u85(lib)
    npu.job = lambda n: n.poke(STATUS, BRANCH_FAULT)  # polling: a fault bit alone finishes the job
    npu.clear_log()
    assert npu.run(Buffer(payloads["ethos-u85-256"]), budget=5) == E["BRANCH"]
    assert lib.mx_ethosu_ram_reads(npu.io, STATUS) == 1 + 1 + 1  # busy check, one poll, the reset's wait


def test_no_completion_on_a_u85_is_a_timeout_then_a_u85_reset(lib, payloads):
    npu = ready_u85(lib)
    buf = Buffer(payloads["ethos-u85-256"])
    npu.job = None
    npu.clear_log()
    assert npu.run(buf, budget=7) == E["TIMEOUT"]
    assert lib.mx_ethosu_ram_reads(npu.io, STATUS) == 1 + 8 + 1 + 1
    log = npu.writes()
    assert log[log.index((CMD, START)) + 1 :] == [(CMD, CLEAR_IRQ | Q_BITS), *u85_init_writes()]
    npu.job = complete
    assert npu.run(buf) == 0


def test_completion_by_interrupt_on_a_u85(lib, payloads):
    npu = Npu(lib, U85_256)
    cfg = npu.config()
    lib.shim_wait(cfg, 1, 0, 1)
    assert npu.init(cfg) == 0
    npu.job = lambda n: (fault(BRANCH_FAULT)(n), lib.mx_ethosu_irq_handler(n.state))
    assert npu.run(Buffer(payloads["ethos-u85-256"])) == E["BRANCH"]


# ---- payloads compiled for something else ----


def test_a_payload_for_another_product_is_refused_and_both_can_be_named(lib, payloads):
    npu = ready_u85(lib)
    npu.clear_log()
    assert npu.run(Buffer(payloads["ethos-u55-128"])) == E["OPT_PRODUCT"]
    assert npu.writes() == [] and npu.seen == []
    payload_product = lib.shim_job_config(npu.state) >> 28
    assert lib.mx_ethosu_product_name(payload_product) == b"Ethos-U55"
    assert lib.mx_ethosu_product_name(U85_256[1] >> 28) == b"Ethos-U85"
    assert lib.mx_ethosu_product_name(3) == b"unknown Ethos-U product"
    u55 = Npu(lib, U55_128)
    assert u55.init() == 0
    assert u55.run(Buffer(payloads["ethos-u85-256"])) == E["OPT_PRODUCT"] and u55.seen == []
    assert lib.shim_job_config(u55.state) >> 28 == U85


def test_a_u85_payload_for_another_configuration_is_refused(lib, payloads):
    """Arm's U85 check: MACs, command stream version, the AXI port counts (CONFIG bits 8-10) and the arch."""
    npu = ready_u85(lib)
    ws = words(payloads["ethos-u85-256"])
    assert ws[2] == U85_256[1] and ws[3] >> 28 == 2  # Vela's OPTIMIZER_CONFIG for a U85-256, arch 2.x
    cases = {
        "macs": (payloads["ethos-u85-512"], "OPT_CONFIG"),
        "sram-ports": (pack([*ws[:2], ws[2] ^ 1 << 8, *ws[3:]]), "OPT_CONFIG"),
        "ext-ports": (pack([*ws[:2], ws[2] | 1 << 10, *ws[3:]]), "OPT_CONFIG"),
        "arch-2.1": (pack([*ws[:3], ws[3] | 1 << 20, *ws[4:]]), "OPT_ARCH"),
        "arch-1": (pack([*ws[:3], 0x10066001, *ws[4:]]), "OPT_ARCH"),
    }
    npu.clear_log()
    for name, (cmd, error) in cases.items():
        assert (name, npu.run(Buffer(cmd))) == (name, E[error])
    assert npu.writes() == []
    # The weight decoder count (bits 12-13) is not compared, as in Arm's driver.
    assert npu.run(Buffer(pack([*ws[:2], ws[2] | 1 << 12, *ws[3:]]))) == 0
