/* FPU (and MVE, which shares the coprocessor 10/11 enable) must be switched on before first use. */
#include <stdint.h>

#define MX_CPACR (*(volatile uint32_t *)0xE000ED88u)

void mx_cpu_enable_fpu(void) {
  MX_CPACR |= 0xFu << 20;   /* CP10 and CP11: full access */
  __asm volatile("dsb\n\tisb" ::: "memory");
}
