/* UART0 on the Pico 2's GP0 (TX) and GP1 (RX): the blocks out of reset, the pads set up, the pins handed to UART0.
 * The PL011 itself (divisors, 8N1, FIFOs) is cortex_m/uart_pl011.c, run after this by mx_platform_init. */
#include "rp2350_regs.h"

#define MX_UART0_TX_GPIO 0u
#define MX_UART0_RX_GPIO 1u

void mx_rp2350_uart0_pins_init(void) {
  uint32_t blocks = MX_RESET_IO_BANK0 | MX_RESET_PADS_BANK0 | MX_RESET_UART0;
  mx_rp2350_reset_hold(blocks);
  mx_rp2350_reset_release(blocks);

  /* Pads (9.11.3): input enabled (RP2350 pads reset with IE off), output not disabled, 4 mA, Schmitt trigger; RX pulled
   * up so an unconnected line idles high instead of reading noise as start bits. The pads stay isolated for now. */
  uint32_t pad = MX_PADS_ISO | MX_PADS_IE | MX_PADS_DRIVE_4MA | MX_PADS_SCHMITT;
  mx_rp2350_write(MX_PADS_GPIO(MX_UART0_TX_GPIO), pad);
  mx_rp2350_write(MX_PADS_GPIO(MX_UART0_RX_GPIO), pad | MX_PADS_PUE);

  /* IO_BANK0 (9.11.1): FUNCSEL 2 gives the pins to UART0 (9.4's function table). */
  mx_rp2350_write(MX_IO_GPIO_CTRL(MX_UART0_TX_GPIO), MX_IO_FUNCSEL_UART);
  mx_rp2350_write(MX_IO_GPIO_CTRL(MX_UART0_RX_GPIO), MX_IO_FUNCSEL_UART);

  /* Only now clear ISO (9.7): the pad latches hold their old state until the peripheral that drives them is chosen,
   * so the TX line never glitches low (a false start bit) in between. */
  mx_rp2350_write(MX_PADS_GPIO(MX_UART0_TX_GPIO), pad & ~MX_PADS_ISO);
  mx_rp2350_write(MX_PADS_GPIO(MX_UART0_RX_GPIO), (pad | MX_PADS_PUE) & ~MX_PADS_ISO);
}
