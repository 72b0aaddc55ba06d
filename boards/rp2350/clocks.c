/* RP2350 clock tree for the Pico 2 (datasheet 8.1 clocks, 8.2 XOSC, 8.6 PLL): the 12 MHz crystal drives clk_ref,
 * PLL_SYS makes 150 MHz for clk_sys, and clk_peri (the UART's clock) follows clk_sys. The boot ROM leaves clk_sys on
 * the ring oscillator (or on PLL_SYS after a debugger reset), so every step works from either state. The XIP flash
 * interface (QMI) keeps the boot ROM's setup, which the pico-sdk too runs at 150 MHz unchanged (no boot2 on RP2350). */
#include "rp2350_regs.h"

#define MX_XOSC_HZ 12000000u /* the Pico 2's crystal */

/* STARTUP.DELAY counts 256-cycle units of the crystal; 8.2.4 says 1 ms is enough for the reference design. */
#define MX_XOSC_STARTUP_DELAY ((MX_XOSC_HZ / 1000u + 255u) / 256u)

/* PLL_SYS: FOUT = FREF / REFDIV * FBDIV / (POSTDIV1 * POSTDIV2) = 12 MHz * 125 / (5 * 2) = 150 MHz.
 * 8.6.3's limits: FREF/REFDIV >= 5 MHz, VCO 750..1600 MHz (here 1500 MHz: high VCO, low jitter), FBDIV 16..320,
 * post dividers 1..7 (the larger one first saves power), system PLL output at most 150 MHz. */
#define MX_PLL_SYS_REFDIV 1u
#define MX_PLL_SYS_FBDIV 125u
#define MX_PLL_SYS_POSTDIV1 5u
#define MX_PLL_SYS_POSTDIV2 2u
#define MX_PLL_SYS_VCO_HZ (MX_XOSC_HZ / MX_PLL_SYS_REFDIV * MX_PLL_SYS_FBDIV)
#define MX_CLK_SYS_HZ (MX_PLL_SYS_VCO_HZ / (MX_PLL_SYS_POSTDIV1 * MX_PLL_SYS_POSTDIV2))

_Static_assert(MX_XOSC_HZ / MX_PLL_SYS_REFDIV >= 5000000u, "PLL reference below 5 MHz");
_Static_assert(MX_PLL_SYS_VCO_HZ >= 750000000u && MX_PLL_SYS_VCO_HZ <= 1600000000u, "VCO outside 750..1600 MHz");
_Static_assert(MX_PLL_SYS_FBDIV >= 16u && MX_PLL_SYS_FBDIV <= 320u, "FBDIV outside 16..320");
_Static_assert(MX_PLL_SYS_POSTDIV1 >= MX_PLL_SYS_POSTDIV2 && MX_PLL_SYS_POSTDIV1 <= 7u && MX_PLL_SYS_POSTDIV2 >= 1u,
               "post dividers outside 1..7");
_Static_assert(MX_CLK_SYS_HZ <= 150000000u, "clk_sys above the RP2350's 150 MHz");
/* The PL011 divisors (cortex_m/uart_pl011.c) come from the board file's [uart].clock_hz: it must be this clk_peri. */
_Static_assert(MX_CLK_SYS_HZ == MX_UART_CLOCK_HZ, "boards/pico2.toml [uart].clock_hz differs from clk_peri");

static void mx_xosc_start(void) {
  mx_rp2350_write(MX_XOSC_STARTUP, MX_XOSC_STARTUP_DELAY);
  mx_rp2350_write(MX_XOSC_CTRL, MX_XOSC_CTRL_FREQ_RANGE_1_15MHZ | MX_XOSC_CTRL_ENABLE_MAGIC);
  while (!(mx_rp2350_read(MX_XOSC_STATUS) & MX_XOSC_STATUS_STABLE)) {
  }
}

/* SRC of clk_ref and clk_sys is a glitchless mux: write it, then wait until SELECTED shows the new source (8.1.3). */
static void mx_clock_select(uint32_t ctrl, uint32_t selected, uint32_t src_mask, uint32_t src) {
  mx_rp2350_write(ctrl, (mx_rp2350_read(ctrl) & ~src_mask) | src);
  while (!(mx_rp2350_read(selected) & (1u << src))) {
  }
}

/* 8.6.4: reset the PLL (known state), program REFDIV and FBDIV, power up the VCO, wait for LOCK, then set and power
 * up the post dividers: the output only changes once the VCO is stable. */
static void mx_pll_sys_start(void) {
  mx_rp2350_reset_hold(MX_RESET_PLL_SYS);
  mx_rp2350_reset_release(MX_RESET_PLL_SYS);
  mx_rp2350_write(MX_PLL_CS, MX_PLL_SYS_REFDIV);
  mx_rp2350_write(MX_PLL_FBDIV_INT, MX_PLL_SYS_FBDIV);
  mx_rp2350_write(MX_PLL_PWR, MX_PLL_PWR_DSMPD | MX_PLL_PWR_POSTDIVPD); /* PD and VCOPD cleared */
  while (!(mx_rp2350_read(MX_PLL_CS) & MX_PLL_CS_LOCK)) {
  }
  mx_rp2350_write(MX_PLL_PRIM, (MX_PLL_SYS_POSTDIV1 << MX_PLL_PRIM_POSTDIV1_LSB) |
                                   (MX_PLL_SYS_POSTDIV2 << MX_PLL_PRIM_POSTDIV2_LSB));
  mx_rp2350_write(MX_PLL_PWR, MX_PLL_PWR_DSMPD); /* post dividers on */
}

void mx_rp2350_clocks_init(void) {
  /* Resus would restart clk_sys from the ring oscillator if it stopped; during the switches below it may look
   * stopped, so it stays off (the SDK's order too). */
  mx_rp2350_write(MX_CLK_SYS_RESUS_CTRL, 0);
  mx_xosc_start();

  /* clk_ref := XOSC / 1. Divisor 1 is the smallest, so writing it first can never overclock anything. */
  mx_rp2350_write(MX_CLK_REF_DIV, MX_CLK_DIV_INT_1);
  mx_clock_select(MX_CLK_REF_CTRL, MX_CLK_REF_SELECTED, MX_CLK_REF_SRC_MASK, MX_CLK_REF_SRC_XOSC);

  /* clk_sys off the aux mux (it may run from PLL_SYS) before the PLL is reset: the CPU runs on clk_ref meanwhile. */
  mx_rp2350_write(MX_CLK_SYS_DIV, MX_CLK_DIV_INT_1);
  mx_clock_select(MX_CLK_SYS_CTRL, MX_CLK_SYS_SELECTED, MX_CLK_SYS_SRC_MASK, MX_CLK_SYS_SRC_CLK_REF);
  mx_pll_sys_start();

  /* The aux mux is not glitchless: change AUXSRC only while SRC does not use it, then switch SRC (8.1.3.2). */
  mx_rp2350_write(MX_CLK_SYS_CTRL, MX_CLK_SYS_AUXSRC_PLL_SYS | MX_CLK_SYS_SRC_CLK_REF);
  mx_clock_select(MX_CLK_SYS_CTRL, MX_CLK_SYS_SELECTED, MX_CLK_SYS_SRC_MASK, MX_CLK_SYS_SRC_AUX);

  /* clk_peri has only an aux mux: stop it and let the disable reach the old source (three of its cycles, the SDK's
   * figure; 64 volatile loop passes are over 250 CPU cycles, enough for any source down to 2 MHz), pick clk_sys,
   * enable, and wait until ENABLED says it runs. */
  mx_rp2350_write(MX_CLK_PERI_CTRL, 0);
  for (volatile uint32_t spin = 0; spin < 64u; spin++) {
  }
  mx_rp2350_write(MX_CLK_PERI_DIV, MX_CLK_DIV_INT_1);
  mx_rp2350_write(MX_CLK_PERI_CTRL, MX_CLK_PERI_AUXSRC_CLK_SYS | MX_CLK_PERI_ENABLE);
  while (!(mx_rp2350_read(MX_CLK_PERI_CTRL) & MX_CLK_PERI_ENABLED)) {
  }
}
