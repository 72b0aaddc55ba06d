/* The serving firmware's main, copied into every serving project as serve/serve_main.c: the serial protocol
 * (runtime_c/serial/, docs/serial-protocol.md) on the board's UART, with the board's model slot store and a
 * work area that serve/mx_serve_memory.c sizes from the board file (mcu_export/firmware/serve_project.py).
 * It loads no model of its own: the host sends one (`mcu-export serial load`), and the slot store keeps it
 * across resets. The UART carries nothing but protocol frames, so this file prints nothing; a fault report
 * (boards/<family>/fault.c) is the one exception, and the host then sees a corrupt frame and a mute device.
 * The board's startup has already called mx_platform_init (UART, tick counter). */
#include <stdint.h>

#include "mx_platform.h"
#include "mx_serial.h"
#include "mx_serve.h"

static mx_serial device;   /* the protocol's whole state: receive buffer, replay, active model */

static int uart_getc(void *ctx) {
  (void)ctx;
  return mx_platform_getc();   /* blocks, never fails: mx_serial_run serves forever */
}

static void uart_putc(void *ctx, uint8_t c) {
  (void)ctx;
  mx_platform_putc(c);
}

/* The board's clock: SysTick (deterministic under QEMU's -icount) or the DWT cycle counter where the board
 * has one; both reach us as mx_platform_ticks. */
static uint64_t ticks(void *ctx) {
  (void)ctx;
  return mx_platform_ticks();
}

/* The runtime calls these around every instruction (runtime.h); they time it for PROFILE. Inside the timing,
 * each kernel call is also an instruction-count region (tag = instruction + 1, as in model firmware's hooks): under
 * QEMU with the icount plugin (fvp/qemu_icount_plugin.c) it gives the call's exact instructions, summed over the
 * process's invokes (`make bench-kernels`: mcu_export/bench_kernels.py). Elsewhere the marker is one byte load. */
void mx_platform_op_begin(uint32_t instruction) {
  mx_serial_op_begin(&device, instruction);
  mx_icount_begin(instruction + 1u);
}
void mx_platform_op_end(uint32_t instruction, mx_error status) {
  (void)status;
  mx_icount_end(instruction + 1u);
  mx_serial_op_end(&device, instruction);
}

int main(void) {
  static const mx_serial_io io = {0, uart_getc, uart_putc, 0, ticks};
  static mx_slot_store store;
  mx_slot_store_open(&store, mx_serve_slot_ram, mx_serve_slot_bytes);
  const mx_serial_config cfg = {
      &io, &store, mx_serve_work, mx_serve_work_bytes, mx_serve_board, mx_serve_firmware, MX_SERVE_MAX_COST};
  mx_serial_init(&device, &cfg);
  mx_serial_run(&device);
  return 0;
}
