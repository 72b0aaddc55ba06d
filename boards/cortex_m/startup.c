/* Reset handler and vector table for every Cortex-M board. Addresses come from the linker script
 * rendered from the board file (codegen/firmware/firmware.ld.j2). */
#include <stdint.h>
#include <string.h>

#include "mx_platform.h"

#define MX_STACK_PAINT 0xC5C5C5C5u

extern uint32_t __mx_data_load[], __mx_data_start[], __mx_data_end[];
extern uint32_t __mx_bss_start[], __mx_bss_end[];
extern uint32_t __mx_stack_bottom[], __mx_stack_top[];

int main(void);
void mx_reset_handler(void);
void mx_hard_fault_handler(void);
void mx_systick_handler(void);

/* Boards with an FPU/MVE link cortex_m/fpu_on.c, which replaces this one. */
__attribute__((weak)) void mx_cpu_enable_fpu(void) {}

static void mx_default_handler(void) {
  mx_platform_puts("\nmx: unexpected exception\n");
  mx_platform_exit(MX_EXIT_HARD_FAULT);
}

/* Core exceptions only: the firmware polls its peripherals and takes no external interrupts. */
__attribute__((used, section(".mx_vectors"))) static void (*const mx_vectors[16])(void) = {
    (void (*)(void))(uintptr_t)__mx_stack_top,
    mx_reset_handler,
    mx_default_handler,      /* NMI */
    mx_hard_fault_handler,
    mx_hard_fault_handler,   /* MemManage: escalates to HardFault's report */
    mx_hard_fault_handler,   /* BusFault */
    mx_hard_fault_handler,   /* UsageFault */
    mx_hard_fault_handler,   /* SecureFault (v8-M) */
    0,
    0,
    0,
    mx_default_handler,      /* SVCall */
    mx_default_handler,      /* DebugMonitor */
    0,
    mx_default_handler,      /* PendSV */
    mx_systick_handler,
};

/* Paint the unused stack so mx_platform_stack_used() can find the deepest write later.
 * Stops a little below the live frame of this function. */
static void mx_paint_stack(void) {
  uint32_t *p = __mx_stack_bottom;
  uint32_t *limit = (uint32_t *)__builtin_frame_address(0) - 16;
  while (p < limit) {
    *p++ = MX_STACK_PAINT;
  }
}

size_t mx_platform_stack_used(void) {
  const uint32_t *p = __mx_stack_bottom;
  while (p < __mx_stack_top && *p == MX_STACK_PAINT) {
    p++;
  }
  return (size_t)((const uint8_t *)__mx_stack_top - (const uint8_t *)p);
}

__attribute__((noreturn, used)) void mx_reset_handler(void) {
    /* The FVP's ELF loader may start here without having read SP from the vector table. */
  __asm volatile("msr msp, %0" : : "r"(__mx_stack_top));
  uint32_t *src = __mx_data_load;
  for (uint32_t *dst = __mx_data_start; dst < __mx_data_end;) {
    *dst++ = *src++;
  }
  for (uint32_t *dst = __mx_bss_start; dst < __mx_bss_end;) {
    *dst++ = 0;
  }
  mx_paint_stack();
  mx_cpu_enable_fpu();
  mx_platform_init();
  mx_platform_exit(main());
}
