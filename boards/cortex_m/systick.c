/* mx_platform_ticks: SysTick counts down from 2^24-1 at the CPU clock; the wrap interrupt extends it
 * to 64 bits. QEMU does not model DWT CYCCNT, and with -icount shift=0 SysTick is deterministic. */
#include <stdint.h>

#include "mx_platform.h"

#define MX_SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define MX_SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define MX_SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define MX_SYST_RELOAD 0x00FFFFFFu

static volatile uint32_t mx_systick_wraps;

void mx_systick_handler(void) { mx_systick_wraps++; }

void mx_ticks_init(void) {
  MX_SYST_RVR = MX_SYST_RELOAD;
  MX_SYST_CVR = 0;
  MX_SYST_CSR = 0x7u; /* processor clock, interrupt on wrap, enable */
  /* The counter reads 0 until its first clock loads RELOAD: read then, it would look like a wrap about to
   * happen, and the first interval measured from it would be 2^24 short. */
  while (MX_SYST_CVR == 0) {
  }
}

uint64_t mx_platform_ticks(void) {
  uint32_t wraps, count;
  do {   /* re-read when a wrap lands between the two reads */
    wraps = mx_systick_wraps;
    count = MX_SYST_CVR;
  } while (wraps != mx_systick_wraps);
  return ((uint64_t)wraps << 24) + (MX_SYST_RELOAD - count);
}
