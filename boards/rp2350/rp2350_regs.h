/* RP2350 register addresses used by the board bring-up (clocks.c, resets.c, gpio_uart.c). Values are the RP2350
 * datasheet's (section numbers in the comments); each access goes through mx_rp2350_read/write so that the host
 * tests (tests/test_pico2_bringup.py) can link a fake register file that logs every access in order. */
#ifndef MX_RP2350_REGS_H
#define MX_RP2350_REGS_H

#include <stdint.h>

/* Peripheral bases, datasheet 2.2 "Address map" (APB peripherals). */
#define MX_RP2350_CLOCKS_BASE 0x40010000u
#define MX_RP2350_RESETS_BASE 0x40020000u
#define MX_RP2350_IO_BANK0_BASE 0x40028000u
#define MX_RP2350_PADS_BANK0_BASE 0x40038000u
#define MX_RP2350_XOSC_BASE 0x40048000u
#define MX_RP2350_PLL_SYS_BASE 0x40050000u

/* XOSC, datasheet 8.2.8: CTRL.ENABLE is a 12-bit magic value (a stray write cannot switch the crystal on or off). */
#define MX_XOSC_CTRL (MX_RP2350_XOSC_BASE + 0x00u)
#define MX_XOSC_STATUS (MX_RP2350_XOSC_BASE + 0x04u)
#define MX_XOSC_STARTUP (MX_RP2350_XOSC_BASE + 0x0Cu)
#define MX_XOSC_CTRL_FREQ_RANGE_1_15MHZ 0xAA0u
#define MX_XOSC_CTRL_ENABLE_MAGIC (0xFABu << 12)
#define MX_XOSC_STATUS_STABLE (1u << 31)

/* PLL_SYS, datasheet 8.6.5. */
#define MX_PLL_CS (MX_RP2350_PLL_SYS_BASE + 0x00u)
#define MX_PLL_PWR (MX_RP2350_PLL_SYS_BASE + 0x04u)
#define MX_PLL_FBDIV_INT (MX_RP2350_PLL_SYS_BASE + 0x08u)
#define MX_PLL_PRIM (MX_RP2350_PLL_SYS_BASE + 0x0Cu)
#define MX_PLL_CS_LOCK (1u << 31)
#define MX_PLL_PWR_PD (1u << 0)        /* whole PLL powered down */
#define MX_PLL_PWR_DSMPD (1u << 2)     /* fractional modulator off: we use an integer FBDIV */
#define MX_PLL_PWR_POSTDIVPD (1u << 3) /* post dividers powered down */
#define MX_PLL_PWR_VCOPD (1u << 5)     /* VCO powered down */
#define MX_PLL_PRIM_POSTDIV1_LSB 16u
#define MX_PLL_PRIM_POSTDIV2_LSB 12u

/* CLOCKS, datasheet 8.1.7: each generator has CTRL, DIV (integer part at bit 16) and SELECTED (one-hot source). */
#define MX_CLK_REF_CTRL (MX_RP2350_CLOCKS_BASE + 0x30u)
#define MX_CLK_REF_DIV (MX_RP2350_CLOCKS_BASE + 0x34u)
#define MX_CLK_REF_SELECTED (MX_RP2350_CLOCKS_BASE + 0x38u)
#define MX_CLK_SYS_CTRL (MX_RP2350_CLOCKS_BASE + 0x3Cu)
#define MX_CLK_SYS_DIV (MX_RP2350_CLOCKS_BASE + 0x40u)
#define MX_CLK_SYS_SELECTED (MX_RP2350_CLOCKS_BASE + 0x44u)
#define MX_CLK_PERI_CTRL (MX_RP2350_CLOCKS_BASE + 0x48u)
#define MX_CLK_PERI_DIV (MX_RP2350_CLOCKS_BASE + 0x4Cu)
#define MX_CLK_SYS_RESUS_CTRL (MX_RP2350_CLOCKS_BASE + 0x84u)
#define MX_CLK_DIV_INT_1 (1u << 16)
#define MX_CLK_REF_SRC_MASK 3u          /* CLK_REF_CTRL.SRC (glitchless) */
#define MX_CLK_REF_SRC_XOSC 2u
#define MX_CLK_SYS_SRC_MASK 1u          /* CLK_SYS_CTRL.SRC (glitchless) */
#define MX_CLK_SYS_SRC_CLK_REF 0u
#define MX_CLK_SYS_SRC_AUX 1u           /* ... the aux mux's output */
#define MX_CLK_SYS_AUXSRC_PLL_SYS (0u << 5) /* CLK_SYS_CTRL.AUXSRC (not glitchless) */
#define MX_CLK_PERI_AUXSRC_CLK_SYS (0u << 5)
#define MX_CLK_PERI_ENABLE (1u << 11)
#define MX_CLK_PERI_ENABLED (1u << 28)   /* read-only: the generator is running */

/* RESETS, datasheet 7.5.3: a set bit holds the block in reset; RESET_DONE reports blocks out of reset. */
#define MX_RESETS_RESET (MX_RP2350_RESETS_BASE + 0x00u)
#define MX_RESETS_RESET_DONE (MX_RP2350_RESETS_BASE + 0x08u)
#define MX_RESET_IO_BANK0 (1u << 6)
#define MX_RESET_PADS_BANK0 (1u << 9)
#define MX_RESET_PLL_SYS (1u << 14)
#define MX_RESET_UART0 (1u << 26)

/* IO_BANK0, datasheet 9.11.1: GPIOn_CTRL at 0x004 + 8n; FUNCSEL 2 is UART0 TX on GP0 and UART0 RX on GP1. */
#define MX_IO_GPIO_CTRL(n) (MX_RP2350_IO_BANK0_BASE + 0x004u + 8u * (n))
#define MX_IO_FUNCSEL_UART 2u

/* PADS_BANK0, datasheet 9.11.3: GPIOn at 0x004 + 4n. RP2350 pads reset isolated (ISO) with the input off. */
#define MX_PADS_GPIO(n) (MX_RP2350_PADS_BANK0_BASE + 0x004u + 4u * (n))
#define MX_PADS_SCHMITT (1u << 1)
#define MX_PADS_PDE (1u << 2)
#define MX_PADS_PUE (1u << 3)
#define MX_PADS_DRIVE_4MA (1u << 4)
#define MX_PADS_IE (1u << 6)
#define MX_PADS_OD (1u << 7)
#define MX_PADS_ISO (1u << 8)

#ifndef MX_RP2350_FAKE_REGISTERS
static inline uint32_t mx_rp2350_read(uint32_t addr) { return *(volatile const uint32_t *)(uintptr_t)addr; }
static inline void mx_rp2350_write(uint32_t addr, uint32_t value) { *(volatile uint32_t *)(uintptr_t)addr = value; }
#else
uint32_t mx_rp2350_read(uint32_t addr);
void mx_rp2350_write(uint32_t addr, uint32_t value);
#endif

void mx_rp2350_reset_hold(uint32_t blocks);
void mx_rp2350_reset_release(uint32_t blocks);
void mx_rp2350_clocks_init(void);
void mx_rp2350_uart0_pins_init(void);

#endif
