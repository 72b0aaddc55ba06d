/* The device's register access (ethosu_io_mmio.h). */
#include "ethosu_io_mmio.h"

void mx_ethosu_io_mmio_init(mx_ethosu_io *io, uintptr_t base) { io->base = (volatile uint32_t *)base; }

uint32_t mx_ethosu_io_read(mx_ethosu_io *io, uint32_t offset) { return io->base[offset / 4u]; }

void mx_ethosu_io_write(mx_ethosu_io *io, uint32_t offset, uint32_t value) { io->base[offset / 4u] = value; }
