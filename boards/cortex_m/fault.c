/* HardFault (and the escalated configurable faults): print the fault status registers and the
 * stacked PC/LR over the UART, then exit with MX_EXIT_HARD_FAULT so the host runner can report it. */
#include <stdint.h>

#include "mx_platform.h"

#define MX_CFSR (*(volatile uint32_t *)0xE000ED28u)
#define MX_HFSR (*(volatile uint32_t *)0xE000ED2Cu)
#define MX_MMFAR (*(volatile uint32_t *)0xE000ED34u)
#define MX_BFAR (*(volatile uint32_t *)0xE000ED38u)

/* The instruction (kernel call) that was running, or -1; generated model firmware defines a strong one. */
int32_t mx_fault_instruction(void);
__attribute__((weak)) int32_t mx_fault_instruction(void) { return -1; }

__attribute__((noreturn, used)) void mx_fault_report(const uint32_t *frame) {
  static const char *const names[] = {"CFSR", "HFSR", "MMFAR", "BFAR", "PC", "LR"};
  const uint32_t values[] = {MX_CFSR, MX_HFSR, MX_MMFAR, MX_BFAR, frame[6], frame[5]};
  mx_platform_puts("\nmx: hard fault");
  for (unsigned i = 0; i < sizeof values / sizeof values[0]; i++) {
    mx_platform_puts(" ");
    mx_platform_puts(names[i]);
    mx_platform_puts("=");
    mx_platform_put_hex(values[i]);
  }
  int32_t instruction = mx_fault_instruction();
  if (instruction >= 0) {
    mx_platform_puts(" op=");
    mx_platform_put_dec(instruction);
  }
  mx_platform_puts("\n");
  mx_platform_exit(MX_EXIT_HARD_FAULT);
}

/* Bit 2 of EXC_RETURN says which stack holds the exception frame. */
__attribute__((naked)) void mx_hard_fault_handler(void) {
  __asm volatile("tst lr, #4\n\t"
                 "ite eq\n\t"
                 "mrseq r0, msp\n\t"
                 "mrsne r0, psp\n\t"
                 "b mx_fault_report\n\t");
}
