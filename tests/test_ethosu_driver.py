"""The Ethos-U55/U65 path of the driver in boards/ethosu/ (the U85's: test_ethosu_driver_u85.py), built for the
host against its register file in RAM and driven through ctypes: the registers init programs, what a run of a
real Vela payload hands the NPU (the start hook stands for the NPU: it sees the job and sets STATUS), faults and
timeouts turned into errors with a soft reset.
Malformed payloads and the builds (ASan/UBSan, Cortex-M55) are in test_ethosu_driver_malformed.py."""

import ctypes

import pytest

from ethosu_driver_harness import (  # tests/support
    AXI_LIMIT,
    BASEP,
    BUS_ERROR,
    CLEAR_IRQ,
    CMD,
    ECC_FAULT,
    END,
    IRQ,
    PARSE_ERROR,
    PMCCNTR,
    PMCCNTR_HI,
    PMCNTENSET,
    PMCR,
    PMU_START,
    PMU_STOP,
    PROT,
    Q_BITS,
    QBASE,
    QBASE_HI,
    QCONFIG,
    QSIZE,
    REGIONCFG,
    RESET,
    RESET_BUSY,
    RUNNING,
    START,
    STATUS,
    U55_128,
    U65_256,
    WD_FAULT,
    Buffer,
    E,
    Npu,
    build_lib,
    compile_payloads,
    complete,
    counting,
    default_init_writes,
    fault,
    pack,
    stream_offset,
)
from mcu_export.ethosu.payload import parse


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return build_lib(tmp_path_factory)


@pytest.fixture(scope="module")
def payloads():
    return compile_payloads()


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
    [(0, 0), (0x10104201, 0x20000118), (0x20007001, 0x00001807), (0x10104201, 0x30001807)],
    ids=["nothing-there(RAZ)", "u85-with-arch-1", "u55-with-arch-2", "product-3"],
)
def test_init_refuses_what_is_not_a_u55_u65_or_u85_without_writing(lib, hw):
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
            (REGIONCFG, regs[REGIONCFG]), *PMU_START, (CMD, START), *PMU_STOP, (CMD, CLEAR_IRQ | Q_BITS),
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
    assert after_start == [*PMU_STOP, (CMD, CLEAR_IRQ | Q_BITS), *default_init_writes(0)]  # clear, reset, reconfigure
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
    handler_then_run = [(CMD, CLEAR_IRQ), *PMU_STOP, (CMD, CLEAR_IRQ | Q_BITS)]
    assert log[log.index((CMD, START)) + 1 :] == handler_then_run
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


# ---- the PMU's cycle counter ----


def test_each_job_counts_its_own_cycles_in_48_bits(lib, payloads):
    """start zeroes and enables the cycle counter just before CMD.start, stop disables it once the end was seen and
    reads both words: the count is the job's alone, the high word's bits 32-47 included."""
    npu = Npu(lib)
    assert npu.init() == 0
    buf = Buffer(payloads["ethos-u55-128"])
    npu.poke(PMCCNTR, 999)  # a stale count: the start's cycle_cnt_rst drops it
    for cycles in (0x1234_89AB_CDEF, 5):
        npu.job = counting(cycles)
        npu.clear_log()
        assert npu.run(buf) == 0 and lib.shim_cycles(npu.state) == cycles
        log = npu.writes()
        at = log.index((CMD, START))
        assert log[at - len(PMU_START) : at] == PMU_START and log[at + 1 : at + 2] == PMU_STOP
        assert lib.mx_ethosu_ram_reads(npu.io, PMCCNTR) == lib.mx_ethosu_ram_reads(npu.io, PMCCNTR_HI) == 1
        assert npu.peek(PMCNTENSET) == 0 and npu.peek(PMCR) == 1  # stopped; PMCR keeps cnt_en, not the reset bit
    npu.job = complete  # nothing counts (no PMU answers): 0, which the firmware does not report
    assert npu.run(buf) == 0 and lib.shim_cycles(npu.state) == 0


def test_the_count_takes_bits_32_to_47_of_the_high_word_and_wraps_at_48_bits(lib, payloads):
    npu = Npu(lib)
    assert npu.init() == 0
    buf = Buffer(payloads["ethos-u55-128"])

    def reserved_bits_set(n):
        n.poke(PMCCNTR, 7)
        n.poke(PMCCNTR_HI, 0xABCD_0012)  # bits 16-31 are reserved: not part of the count
        complete(n)

    npu.job = reserved_bits_set
    assert npu.run(buf) == 0 and lib.shim_cycles(npu.state) == 0x12 << 32 | 7
    npu.job = lambda n: (counting((1 << 48) - 1)(n), counting(3)(n))
    assert npu.run(buf) == 0 and lib.shim_cycles(npu.state) == 2


def test_a_counter_the_driver_did_not_start_does_not_count(lib):
    """The register file's PMU moves only when PMCR.cnt_en and PMCNTENSET's cycle bit are set, as the NPU's;
    the U85's PMU sits 0x1000 higher (past this register file: those accesses count as bad)."""
    npu = Npu(lib)
    assert npu.init() == 0
    lib.mx_ethosu_ram_count_cycles(npu.io, 100)
    assert lib.mx_ethosu_pmu_stop(npu.io, 0) == 0
    lib.mx_ethosu_pmu_start(npu.io, 0)
    lib.mx_ethosu_ram_count_cycles(npu.io, 100)
    assert lib.mx_ethosu_pmu_stop(npu.io, 0) == 100
    lib.mx_ethosu_ram_count_cycles(npu.io, 100)  # stopped
    assert lib.mx_ethosu_pmu_stop(npu.io, 1) == 100  # the U65's PMU is where the U55's is
    assert [lib.mx_ethosu_pmu_offset(p) for p in (0, 1, 2)] == [0, 0, 0x1000]
    lib.mx_ethosu_pmu_start(npu.io, 2)
    assert lib.mx_ethosu_pmu_stop(npu.io, 2) == 0 and lib.mx_ethosu_ram_bad_accesses(npu.io) == 4 + 3
