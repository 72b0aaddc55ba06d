/* The device's register access: the NPU's registers as volatile memory at its base address.
 * Corstone-300 (SSE-300): Ethos-U55 at 0x48102000 (non-secure alias) / 0x58102000 (secure), IRQ 56. */
#ifndef MX_ETHOSU_IO_MMIO_H
#define MX_ETHOSU_IO_MMIO_H

#include <stdint.h>

#include "ethosu_io.h"

struct mx_ethosu_io {
  volatile uint32_t *base;
};

void mx_ethosu_io_mmio_init(mx_ethosu_io *io, uintptr_t base);

#endif /* MX_ETHOSU_IO_MMIO_H */
