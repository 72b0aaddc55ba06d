/* The driver's one seam: 32-bit reads and writes of the NPU's registers, at byte offsets from its base.
 *
 * Which implementation runs is which translation unit is linked, not a macro:
 *   ethosu_io_mmio.c  the device: volatile loads and stores at the NPU's base address (ethosu_io_mmio.h)
 *   ethosu_io_ram.c   the host: a register file in RAM; writing CMD's start bit calls a hook that stands for
 *                     the NPU (a simulator, or a test) (ethosu_io_ram.h)
 * Each defines `struct mx_ethosu_io` and a function that sets one up; the driver only holds the pointer.
 */
#ifndef MX_ETHOSU_IO_H
#define MX_ETHOSU_IO_H

#include <stdint.h>

typedef struct mx_ethosu_io mx_ethosu_io;

uint32_t mx_ethosu_io_read(mx_ethosu_io *io, uint32_t offset);
void mx_ethosu_io_write(mx_ethosu_io *io, uint32_t offset, uint32_t value);

#endif /* MX_ETHOSU_IO_H */
