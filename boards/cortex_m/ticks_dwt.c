/* mx_platform_ticks from the DWT cycle counter (boards with `[ticks] kind = "dwt"`): CYCCNT counts CPU cycles exactly,
 * including the cycles spent in interrupts. It is 32 bits wide, so SysTick interrupts every 2^24 cycles (0.11 s at
 * 150 MHz) to sample it: a 64-bit count survives any wait between two reads, e.g. a host that is slow to answer. */
#include <stdint.h>

#include "mx_platform.h"
#include "ticks_extend.h"

/* Armv8-M Architecture Reference Manual, debug registers: DEMCR.TRCENA powers the DWT; DWT_CTRL.CYCCNTENA starts
 * CYCCNT; DWT_CTRL.NOCYCCNT reads 1 on a core built without the counter. */
#define MX_DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define MX_DEMCR_TRCENA (1u << 24)
#define MX_DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define MX_DWT_CTRL_CYCCNTENA (1u << 0)
#define MX_DWT_CTRL_NOCYCCNT (1u << 25)
#define MX_DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define MX_SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define MX_SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define MX_SYST_CVR (*(volatile uint32_t *)0xE000E018u)

static mx_ticks_extend_t mx_cyccnt;

/* The interrupt and a reader may both sample: each sample runs with interrupts masked. */
static uint64_t mx_cyccnt_sample(void) {
  uint32_t primask;
  __asm volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
  uint64_t total = mx_ticks_extend(&mx_cyccnt, MX_DWT_CYCCNT);
  __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
  return total;
}

void mx_systick_handler(void) { (void)mx_cyccnt_sample(); }

void mx_ticks_init(void) {
  MX_DEMCR |= MX_DEMCR_TRCENA;
  if (MX_DWT_CTRL & MX_DWT_CTRL_NOCYCCNT) {
    mx_platform_puts("\nmx: [ticks] kind = \"dwt\" but this core has no DWT CYCCNT\n");
    mx_platform_exit(MX_EXIT_HARD_FAULT);
  }
  MX_DWT_CYCCNT = 0;
  MX_DWT_CTRL |= MX_DWT_CTRL_CYCCNTENA;
  mx_cyccnt.last = 0;
  mx_cyccnt.total = 0;
  MX_SYST_RVR = 0x00FFFFFFu;
  MX_SYST_CVR = 0;
  MX_SYST_CSR = 0x7u; /* processor clock, interrupt on wrap, enable */
}

uint64_t mx_platform_ticks(void) { return mx_cyccnt_sample(); }
