/* The NPU's interrupt in model firmware. The core's 16 vectors are boards/cortex_m/startup.c's (.mx_vectors);
 * the linker script keeps .mx_vectors_ext right behind them, so entry n of the table here is external interrupt
 * n. Only the NPU's line is enabled, so only its entry is filled: any other is 0, and a stray interrupt there
 * faults into the hard-fault report instead of running on. The table's 16 + MX_NPU_IRQ + 1 words need VTOR's
 * alignment (the next power of two): the vectors region's origin has it on every board with an NPU.
 *
 * On silicon and the FVP the NPU raises its line when a job ends or faults. On QEMU, which has no NPU,
 * npu_platform.c pends the line once the seam's reply is back: the NVIC set-up, the handler and the driver's
 * wait are the ones that run on silicon.
 *
 * Needs: MX_NPU_IRQ (the board file's npu_irq). */
#include <stdint.h>

#include "npu_irq.h"

#define MX_NVIC_ISER(n) (*(volatile uint32_t *)(0xE000E100u + 4u * (n)))
#define MX_NVIC_ISPR(n) (*(volatile uint32_t *)(0xE000E200u + 4u * (n)))

__attribute__((used, section(".mx_vectors_ext"))) static void (*const mx_external_vectors[MX_NPU_IRQ + 1])(void) = {
    [MX_NPU_IRQ] = mx_npu_irq,
};

void mx_npu_irq_enable(void) { MX_NVIC_ISER(MX_NPU_IRQ / 32u) = 1u << (MX_NPU_IRQ % 32u); }

void mx_npu_irq_raise(void) {
  MX_NVIC_ISPR(MX_NPU_IRQ / 32u) = 1u << (MX_NPU_IRQ % 32u);
  /* The interrupt is taken before the next instruction that follows these barriers (Armv8-M: a pended,
   * enabled interrupt of sufficient priority is recognised after a DSB + ISB). */
  __asm volatile("dsb\n\tisb" ::: "memory");
}
