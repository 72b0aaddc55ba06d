/* mx_soc_init for the RP2350 (called by cortex_m/platform.c before the UART and tick drivers start). */
#include <stdint.h>

#include "rp2350_regs.h"

#define MX_SCB_VTOR (*(volatile uint32_t *)0xE000ED08u) /* Armv8-M ARM B3.2: Vector Table Offset Register */

extern const uint32_t __mx_vectors_start[];

void mx_soc_init(void) {
  /* The boot ROM enters through our vector table but we do not rely on it leaving VTOR there: SysTick's interrupt
   * (the tick driver) must reach our handler. */
  MX_SCB_VTOR = (uint32_t)(uintptr_t)__mx_vectors_start;
  mx_rp2350_clocks_init();
  mx_rp2350_uart0_pins_init();
}
