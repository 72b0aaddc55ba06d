/* RP2350 RESETS (datasheet 7.5): peripherals leave the boot ROM in whatever state it needed; the bring-up holds the
 * blocks it uses in reset and releases them, so every register starts from its documented reset value. */
#include "rp2350_regs.h"

void mx_rp2350_reset_hold(uint32_t blocks) {
  mx_rp2350_write(MX_RESETS_RESET, mx_rp2350_read(MX_RESETS_RESET) | blocks);
}

/* A block's registers must not be touched until RESET_DONE says it is out of reset (7.5.2). */
void mx_rp2350_reset_release(uint32_t blocks) {
  mx_rp2350_write(MX_RESETS_RESET, mx_rp2350_read(MX_RESETS_RESET) & ~blocks);
  while ((mx_rp2350_read(MX_RESETS_RESET_DONE) & blocks) != blocks) {
  }
}
