/* mx_platform_ticks from the DWT cycle counter (boards with `[ticks] kind = "dwt"`): CYCCNT counts CPU cycles exactly,
 * including the cycles spent in interrupts. It is 32 bits wide, so SysTick interrupts every 2^24 cycles (0.11 s at
 * 150 MHz) to sample it: a 64-bit count survives any wait between two reads, e.g. a host that is slow to answer.
 * Where CYCCNT does not count after all, the same SysTick gives the ticks, as cortex_m/systick.c would. */
#include <stdint.h>

#include "mx_platform.h"
#include "ticks_extend.h"

/* Armv8-M Architecture Reference Manual, debug registers. DEMCR.TRCENA powers the DWT; DWT_CTRL.CYCCNTENA starts
 * CYCCNT, DWT_CTRL.NOCYCCNT reads 1 on a core built without it. CYCCNT does not count in Secure state (where the
 * RP2350 runs us) unless Secure non-invasive debug is allowed, which a boot without a debugger need not leave on:
 * DAUTHCTRL.SPNIDENSEL with INTSPNIDEN allows it from software. */
#define MX_DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define MX_DEMCR_TRCENA (1u << 24)
#define MX_DAUTHCTRL (*(volatile uint32_t *)0xE000EE04u)
#define MX_DAUTHCTRL_SPNIDENSEL (1u << 2)
#define MX_DAUTHCTRL_INTSPNIDEN (1u << 3)
#define MX_DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define MX_DWT_CTRL_CYCCNTENA (1u << 0)
#define MX_DWT_CTRL_NOCYCCNT (1u << 25)
#define MX_DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define MX_SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define MX_SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define MX_SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define MX_SYST_RELOAD 0x00FFFFFFu

static mx_ticks_extend_t mx_cyccnt;
static volatile uint32_t mx_systick_wraps;
static int mx_cyccnt_counts;

/* The interrupt and a reader may both sample: each sample runs with interrupts masked. */
static uint64_t mx_cyccnt_sample(void) {
  uint32_t primask;
  __asm volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
  uint64_t total = mx_ticks_extend(&mx_cyccnt, MX_DWT_CYCCNT);
  __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
  return total;
}

void mx_systick_handler(void) {
  mx_systick_wraps++;
  if (mx_cyccnt_counts) {
    (void)mx_cyccnt_sample();
  }
}

void mx_ticks_init(void) {
  MX_DEMCR |= MX_DEMCR_TRCENA;
  MX_DAUTHCTRL |= MX_DAUTHCTRL_SPNIDENSEL | MX_DAUTHCTRL_INTSPNIDEN;
  if (!(MX_DWT_CTRL & MX_DWT_CTRL_NOCYCCNT)) {
    MX_DWT_CYCCNT = 0;
    MX_DWT_CTRL |= MX_DWT_CTRL_CYCCNTENA;
    uint32_t before = MX_DWT_CYCCNT;
    for (volatile int spin = 0; spin < 16; spin++) {
    }
    mx_cyccnt_counts = MX_DWT_CYCCNT != before;
  }
  if (!mx_cyccnt_counts) {
    mx_platform_puts("mx: DWT CYCCNT does not count here: ticks are SysTick's\n");
  }
  mx_cyccnt.last = MX_DWT_CYCCNT;
  mx_cyccnt.total = 0;
  MX_SYST_RVR = MX_SYST_RELOAD;
  MX_SYST_CVR = 0;
  MX_SYST_CSR = 0x7u; /* processor clock, interrupt on wrap, enable */
  /* The counter reads 0 until its first clock loads RELOAD: read then, it would look like a wrap about to
   * happen, and the first interval measured from it would be 2^24 short. */
  while (MX_SYST_CVR == 0) {
  }
}

uint64_t mx_platform_ticks(void) {
  if (mx_cyccnt_counts) {
    return mx_cyccnt_sample();
  }
  uint32_t wraps, count;
  do { /* re-read when a wrap lands between the two reads */
    wraps = mx_systick_wraps;
    count = MX_SYST_CVR;
  } while (wraps != mx_systick_wraps);
  return ((uint64_t)wraps << 24) + (MX_SYST_RELOAD - count);
}
