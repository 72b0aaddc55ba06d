/* A host stand-in for the RP2350 registers that boards/rp2350/ touches (tests/test_pico2_bringup.py).
 *
 * Built with -DMX_RP2350_FAKE_REGISTERS, the bring-up code calls mx_rp2350_read/write below instead of touching
 * memory. This file models what the bring-up waits for, from the datasheet: XOSC reports STABLE a few polls after it
 * is enabled, the PLL reports LOCK a few polls after its VCO is powered with a valid FBDIV (never while in reset),
 * SELECTED follows a clock's SRC, RESET_DONE is the complement of RESET, CLK_PERI_CTRL.ENABLED follows ENABLE.
 * Registers start at their reset values (clk_sys on its aux mux, the ring oscillator; everything held in reset).
 *
 * Output, one access per line in order: "W <addr> <value>" and "R <addr> <value>", then "F <addr> <value>" for every
 * register touched (its final value), then "P <ibrd> <fbrd> <lcr_h> <cr>" for the PL011 (cortex_m/uart_pl011.c run
 * against mx_fake_pl011), then "T <total>" for each sample of the CYCCNT widening (cortex_m/ticks_extend.h).
 * A poll that never ends prints "STUCK <addr>" and exits 2.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rp2350_regs.h"
#include "ticks_extend.h"

uint32_t mx_fake_pl011[0x40]; /* the PL011's register block (MX_UART_BASE points here) */
void mx_uart_init(void);

#define MX_FAKE_REGS 128
#define MX_FAKE_SETTLE_POLLS 3 /* polls before STABLE / LOCK appear: the code must wait, not read once */
#define MX_FAKE_MAX_POLLS 10000

static struct {
  uint32_t addr, value;
} regs[MX_FAKE_REGS];
static int nregs;
static uint32_t last_read_addr, same_reads, xosc_polls, pll_polls;

static uint32_t *slot(uint32_t addr) {
  for (int i = 0; i < nregs; i++) {
    if (regs[i].addr == addr) {
      return &regs[i].value;
    }
  }
  if (nregs == MX_FAKE_REGS) {
    fprintf(stderr, "fake: too many registers\n");
    exit(3);
  }
  regs[nregs].addr = addr;
  regs[nregs].value = 0;
  return &regs[nregs++].value;
}

static uint32_t stored(uint32_t addr) { return *slot(addr); }

static void reset_values(void) {
  *slot(MX_RESETS_RESET) = 0x1FFFFFFFu;
  *slot(MX_CLK_REF_CTRL) = 0x0u;   /* SRC = ring oscillator */
  *slot(MX_CLK_SYS_CTRL) = 0x41u;  /* AUXSRC = ring oscillator, SRC = aux */
  *slot(MX_CLK_REF_DIV) = 1u << 16;
  *slot(MX_CLK_SYS_DIV) = 1u << 16;
  *slot(MX_CLK_PERI_DIV) = 1u << 16;
  *slot(MX_CLK_SYS_RESUS_CTRL) = 0xFFu;
  *slot(MX_PLL_CS) = 0x1u;
  *slot(MX_PLL_PWR) = 0x2Du;
  *slot(MX_PLL_PRIM) = 0x77000u;
  *slot(MX_PADS_GPIO(0)) = 0x116u;
  *slot(MX_PADS_GPIO(1)) = 0x116u;
  *slot(MX_IO_GPIO_CTRL(0)) = 0x1Fu; /* FUNCSEL = null */
  *slot(MX_IO_GPIO_CTRL(1)) = 0x1Fu;
}

static int pll_running(void) {
  uint32_t fbdiv = stored(MX_PLL_FBDIV_INT);
  int in_reset = (stored(MX_RESETS_RESET) & MX_RESET_PLL_SYS) != 0;
  int powered = (stored(MX_PLL_PWR) & (MX_PLL_PWR_PD | MX_PLL_PWR_VCOPD)) == 0;
  return !in_reset && powered && fbdiv >= 16u && fbdiv <= 320u;
}

static uint32_t modelled(uint32_t addr) {
  switch (addr) {
    case MX_XOSC_STATUS:
      return ((stored(MX_XOSC_CTRL) >> 12) & 0xFFFu) == 0xFABu && ++xosc_polls > MX_FAKE_SETTLE_POLLS
                 ? MX_XOSC_STATUS_STABLE | (1u << 12)
                 : 0u;
    case MX_PLL_CS: return stored(addr) | (pll_running() && ++pll_polls > MX_FAKE_SETTLE_POLLS ? MX_PLL_CS_LOCK : 0u);
    case MX_RESETS_RESET_DONE: return ~stored(MX_RESETS_RESET) & 0x1FFFFFFFu;
    case MX_CLK_REF_SELECTED: return 1u << (stored(MX_CLK_REF_CTRL) & MX_CLK_REF_SRC_MASK);
    case MX_CLK_SYS_SELECTED: return 1u << (stored(MX_CLK_SYS_CTRL) & MX_CLK_SYS_SRC_MASK);
    case MX_CLK_PERI_CTRL: return stored(addr) | (stored(addr) & MX_CLK_PERI_ENABLE ? MX_CLK_PERI_ENABLED : 0u);
    default: return stored(addr);
  }
}

uint32_t mx_rp2350_read(uint32_t addr) {
  same_reads = addr == last_read_addr ? same_reads + 1u : 0u;
  last_read_addr = addr;
  if (same_reads > MX_FAKE_MAX_POLLS) {
    printf("STUCK 0x%08x\n", addr);
    exit(2);
  }
  uint32_t value = modelled(addr);
  printf("R 0x%08x 0x%08x\n", addr, value);
  return value;
}

void mx_rp2350_write(uint32_t addr, uint32_t value) {
  last_read_addr = 0;
  if (addr == MX_PLL_PWR && (value & MX_PLL_PWR_VCOPD)) {
    pll_polls = 0; /* a powered-down VCO must lock again */
  }
  *slot(addr) = value;
  printf("W 0x%08x 0x%08x\n", addr, value);
}

int main(void) {
  reset_values();
  mx_rp2350_clocks_init();
  mx_rp2350_uart0_pins_init();
  for (int i = 0; i < nregs; i++) {
    printf("F 0x%08x 0x%08x\n", regs[i].addr, regs[i].value);
  }
  mx_uart_init();
  printf("P %u %u 0x%x 0x%x\n", mx_fake_pl011[0x24 / 4], mx_fake_pl011[0x28 / 4], mx_fake_pl011[0x2C / 4],
         mx_fake_pl011[0x30 / 4]);
  /* CYCCNT samples across two wraps, one of them a full lap minus one count. */
  static const uint32_t samples[] = {0x10u, 0xFFFFFF00u, 0x100u, 0x80000000u, 0xFFFFFFFFu, 0x7FFFFFFEu, 5u};
  mx_ticks_extend_t state = {0, 0};
  for (unsigned i = 0; i < sizeof samples / sizeof samples[0]; i++) {
    printf("T %llu\n", (unsigned long long)mx_ticks_extend(&state, samples[i]));
  }
  return 0;
}
