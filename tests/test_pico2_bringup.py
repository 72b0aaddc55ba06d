"""The Pico 2's bring-up C (boards/rp2350/), compiled for this machine against a fake register file
(tests/support/rp2350_fake_regs.c) that logs every access: the final clock, PLL, reset, pad and pin values, and the
order of the writes that matter (clk_sys off PLL_SYS before the PLL is reset, LOCK before the PLL drives clk_sys,
the aux mux changed only while unused, pins given to UART0 before their pads leave isolation); the PL011 divisors
for 115200 baud from clk_peri; the 64-bit widening of the 32-bit DWT CYCCNT."""

import shutil
import subprocess
from pathlib import Path

import pytest

from mcu_export.boards import load_board

ROOT = Path(__file__).resolve().parents[1]
BOARDS = ROOT / "boards"
XOSC_HZ = 12_000_000

# Addresses (RP2350 datasheet; the same numbers as boards/rp2350/rp2350_regs.h, written out again on purpose).
CLOCKS, RESETS, IO_BANK0, PADS_BANK0, XOSC, PLL_SYS = (
    0x40010000,
    0x40020000,
    0x40028000,
    0x40038000,
    0x40048000,
    0x40050000,
)
CLK_REF_CTRL, CLK_SYS_CTRL, CLK_SYS_SELECTED, CLK_PERI_CTRL = CLOCKS + 0x30, CLOCKS + 0x3C, CLOCKS + 0x44, CLOCKS + 0x48
CLK_SYS_RESUS_CTRL = CLOCKS + 0x84
PLL_CS, PLL_PWR, PLL_FBDIV, PLL_PRIM = PLL_SYS, PLL_SYS + 4, PLL_SYS + 8, PLL_SYS + 0xC
RESET, RESET_PLL_SYS = RESETS, 1 << 14
RESET_USED = (1 << 6) | (1 << 9) | (1 << 14) | (1 << 26)  # IO_BANK0, PADS_BANK0, PLL_SYS, UART0
PAD_ISO, PAD_OD, PAD_IE = 1 << 8, 1 << 7, 1 << 6

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a host C compiler (cc)")


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """(accesses in order as (kind, addr, value), final register values, PL011 registers, widened tick samples)."""
    tmp = tmp_path_factory.mktemp("rp2350")
    (tmp / "fake_pl011.h").write_text("#include <stdint.h>\nextern uint32_t mx_fake_pl011[];\n")
    defines = load_board("pico2").c_defines()
    defines["MX_UART_BASE"] = "((uintptr_t)mx_fake_pl011)"
    sources = [BOARDS / "rp2350" / f for f in ("clocks.c", "resets.c", "gpio_uart.c")]
    sources += [BOARDS / "cortex_m" / "uart_pl011.c", ROOT / "tests" / "support" / "rp2350_fake_regs.c"]
    exe = tmp / "bringup"
    cmd = ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-DMX_RP2350_FAKE_REGISTERS", "-include"]
    cmd += [str(tmp / "fake_pl011.h"), *(f"-D{k}={v}" for k, v in defines.items())]
    cmd += [f"-I{BOARDS / d}" for d in ("rp2350", "cortex_m", "include")]
    subprocess.run([*cmd, *map(str, sources), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    accesses, final, pl011, ticks = [], {}, None, []
    for line in out.stdout.splitlines():
        kind, *fields = line.split()
        if kind in ("R", "W"):
            accesses.append((kind, int(fields[0], 16), int(fields[1], 16)))
        elif kind == "F":
            final[int(fields[0], 16)] = int(fields[1], 16)
        elif kind == "P":
            pl011 = dict(zip(("ibrd", "fbrd", "lcr_h", "cr"), (int(f, 0) for f in fields)))
        elif kind == "T":
            ticks.append(int(fields[0]))
    return accesses, final, pl011, ticks


def clk_sys_hz(final):
    refdiv, fbdiv = final[PLL_CS] & 0x3F, final[PLL_FBDIV]
    pd1, pd2 = (final[PLL_PRIM] >> 16) & 7, (final[PLL_PRIM] >> 12) & 7
    vco = XOSC_HZ // refdiv * fbdiv
    assert 750_000_000 <= vco <= 1_600_000_000 and 16 <= fbdiv <= 320 and XOSC_HZ // refdiv >= 5_000_000
    assert final[CLK_SYS_CTRL] == 0x1, "clk_sys: SRC = aux, AUXSRC = PLL_SYS"
    return vco // (pd1 * pd2)


def test_final_clock_tree_is_150_mhz_from_the_crystal(trace):
    _, final, _, _ = trace
    assert final[XOSC] == 0xFABAA0 and final[XOSC + 0xC] == 47  # 1-15 MHz range, enabled; 1 ms startup delay
    assert (final[PLL_CS] & 0x3F, final[PLL_FBDIV], final[PLL_PRIM]) == (1, 125, (5 << 16) | (2 << 12))
    assert final[PLL_PWR] == 0x4, "VCO and post dividers powered, fractional modulator off"
    assert clk_sys_hz(final) == 150_000_000 == load_board("pico2").uart.clock_hz
    assert final[CLK_REF_CTRL] & 3 == 2, "clk_ref from XOSC"
    assert final[CLK_PERI_CTRL] == 1 << 11, "clk_peri enabled, from clk_sys"
    assert final[CLK_SYS_RESUS_CTRL] == 0


def test_resets_released_and_pins_on_uart0(trace):
    _, final, _, _ = trace
    assert final[RESET] & RESET_USED == 0
    for gpio in (0, 1):
        assert final[IO_BANK0 + 4 + 8 * gpio] & 0x1F == 2, f"GP{gpio} FUNCSEL = UART0"
        pad = final[PADS_BANK0 + 4 + 4 * gpio]
        assert pad & PAD_IE and not pad & (PAD_ISO | PAD_OD), f"GP{gpio} pad: input on, output on, not isolated"
    assert final[PADS_BANK0 + 8] & (1 << 3), "RX pulled up"


def first(accesses, kind, addr, test=lambda value: True, after=0):
    """Index of the first access of `kind` ("R"/"W") to `addr` whose value passes `test`, at or after `after`."""
    return next(i for i, (k, a, v) in enumerate(accesses) if i >= after and k == kind and a == addr and test(v))


def test_order_of_the_critical_writes(trace):
    accesses, _, _, _ = trace
    resus_off = first(accesses, "W", CLK_SYS_RESUS_CTRL, lambda v: v == 0)
    xosc_on = first(accesses, "W", XOSC, lambda v: v >> 12 == 0xFAB)
    xosc_stable = first(accesses, "R", XOSC + 4, lambda v: v >> 31, after=xosc_on)
    ref_on_xosc = first(accesses, "W", CLK_REF_CTRL, lambda v: v & 3 == 2)
    sys_on_ref = first(accesses, "W", CLK_SYS_CTRL, lambda v: v & 1 == 0)
    sys_on_ref_seen = first(accesses, "R", CLK_SYS_SELECTED, lambda v: v == 1, after=sys_on_ref)
    pll_reset = first(accesses, "W", RESET, lambda v: v & RESET_PLL_SYS)
    pll_first_write = min(first(accesses, "W", a) for a in (PLL_CS, PLL_PWR, PLL_FBDIV, PLL_PRIM))
    locked = first(accesses, "R", PLL_CS, lambda v: v >> 31)
    postdiv = first(accesses, "W", PLL_PRIM)
    sys_on_pll = first(accesses, "W", CLK_SYS_CTRL, lambda v: v == 1)
    startup_delay = first(accesses, "W", XOSC + 0xC)
    powered = first(accesses, "W", PLL_PWR, lambda v: not v & 0x21)  # PD and VCOPD clear
    dividers = max(first(accesses, "W", PLL_CS), first(accesses, "W", PLL_FBDIV))
    assert startup_delay < xosc_on, "8.2.4: STARTUP set before the crystal is enabled"
    assert dividers < powered < locked, "REFDIV and FBDIV set before the VCO powers up, then LOCK awaited"
    assert resus_off < xosc_on < xosc_stable < ref_on_xosc, "clk_ref moves to the crystal only once it is stable"
    assert sys_on_ref < sys_on_ref_seen < pll_reset < pll_first_write, "clk_sys leaves PLL_SYS before it is reset"
    assert pll_first_write < locked < postdiv < sys_on_pll, "LOCK awaited before the PLL drives clk_sys"
    # The aux mux is not glitchless: AUXSRC changes only in writes that keep (and find) SRC on clk_ref.
    sys_ctrl = 0x41
    for kind, addr, value in accesses:
        if kind == "W" and addr == CLK_SYS_CTRL:
            if (value ^ sys_ctrl) & 0xE0:
                assert value & 1 == 0 and sys_ctrl & 1 == 0, f"AUXSRC changed while in use: {sys_ctrl:#x} → {value:#x}"
            sys_ctrl = value
    # clk_peri is stopped before its source changes, and enabled after.
    peri = [v for k, a, v in accesses if k == "W" and a == CLK_PERI_CTRL]
    assert peri == [0, 1 << 11]


def test_pads_leave_isolation_after_funcsel(trace):
    accesses, _, _, _ = trace
    released = first(accesses, "R", RESETS + 8, lambda v: v & RESET_USED == RESET_USED)
    for gpio in (0, 1):
        funcsel = first(accesses, "W", IO_BANK0 + 4 + 8 * gpio, lambda v: v & 0x1F == 2)
        iso_off = first(accesses, "W", PADS_BANK0 + 4 + 4 * gpio, lambda v: not v & PAD_ISO)
        assert released < funcsel < iso_off, f"GP{gpio}"


def test_uart_divisors_give_115200_within_one_percent(trace):
    _, final, pl011, _ = trace
    clk_peri = clk_sys_hz(final)
    divisor = pl011["ibrd"] + pl011["fbrd"] / 64
    baud = clk_peri / (16 * divisor)
    # 150 MHz / (16 * 115200) = 81.380; IBRD 81, FBRD round(0.380 * 64) = 24: 81.375 → 115207 baud, +0.006 %.
    assert (pl011["ibrd"], pl011["fbrd"]) == (81, 24)
    assert abs(baud - 115200) / 115200 < 0.01
    assert pl011["lcr_h"] == 0x70 and pl011["cr"] == 0x301, "8N1 with FIFOs; UART, TX and RX enabled"


def test_cyccnt_widened_without_losing_wraps(trace):
    *_, ticks = trace
    samples = [0x10, 0xFFFFFF00, 0x100, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFE, 5]
    expected = [0x10, 0xFFFFFF00, 0x1_0000_0100, 0x1_8000_0000, 0x1_FFFF_FFFF, 0x2_7FFF_FFFE, 0x3_0000_0005]
    assert ticks == expected and len(samples) == len(ticks)
