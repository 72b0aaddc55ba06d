/* Model slots for a simulator (QEMU, FVP): both slots live in the host file "slots.bin" in the simulator's
 * working directory, reached through semihosting, so they survive a restart as flash survives a power cycle.
 * The runtime needs the image readable in place, so the slots also have a RAM copy: read from the file at
 * boot, then every erase and write goes to both at once. Nothing is buffered: a simulator killed in the
 * middle of a transfer leaves in the file exactly the bytes written so far, the slot header (written last by
 * LOAD_END) not among them, which is what the A/B scheme relies on (docs/serial-protocol.md). */
#include <stdint.h>
#include <string.h>

#include "mx_platform.h"
#include "mx_serve.h"

#define SLOT_FILE "slots.bin"

typedef struct semihost_slots {
  int handle;   /* -1: the file could not be opened; erase and write then fail */
  uint32_t slot_bytes;
  uint8_t *ram;
} semihost_slots;

static semihost_slots slots;

/* Writes ram[offset, offset + len) of the two-slot copy through to the same place in the file. */
static int persist(uint32_t offset, uint32_t len) {
  if (slots.handle < 0 || mx_semihost_seek(slots.handle, offset) != 0) return -1;
  return mx_semihost_write(slots.handle, slots.ram + offset, len) == 0 ? 0 : -1;
}

static int slots_erase(void *ctx, uint32_t slot) {
  (void)ctx;
  if (slot > 1u) return -1;
  memset(slots.ram + slot * slots.slot_bytes, 0xFF, slots.slot_bytes);
  return persist(slot * slots.slot_bytes, slots.slot_bytes);
}

static int slots_write(void *ctx, uint32_t slot, uint32_t offset, const void *data, uint32_t len) {
  (void)ctx;
  if (slot > 1u || offset > slots.slot_bytes || len > slots.slot_bytes - offset) return -1;
  const uint32_t at = slot * slots.slot_bytes + offset;
  memcpy(slots.ram + at, data, len);
  return persist(at, len);
}

static const uint8_t *slots_map(void *ctx, uint32_t slot) {
  (void)ctx;
  return slots.ram + (slot & 1u) * slots.slot_bytes;
}

void mx_slot_store_open(mx_slot_store *store, uint8_t *ram, uint32_t slot_bytes) {
  const uint32_t total = 2u * slot_bytes;
  slots.slot_bytes = slot_bytes;
  slots.ram = ram;
  memset(ram, 0xFF, total);   /* a missing or short file reads as erased flash */
  slots.handle = mx_semihost_open(SLOT_FILE, MX_SEMIHOST_MODE_RPLUSB);
  if (slots.handle < 0) slots.handle = mx_semihost_open(SLOT_FILE, MX_SEMIHOST_MODE_WPLUSB);
  if (slots.handle >= 0) {
    long have = mx_semihost_flen(slots.handle);
    have = have < 0 ? 0 : (have > (long)total ? (long)total : have);
    /* read returns the bytes it did not read: a short read leaves the rest erased */
    (void)mx_semihost_read(slots.handle, ram, (size_t)have);
    if ((uint32_t)have < total && persist((uint32_t)have, total - (uint32_t)have) != 0) slots.handle = -1;
  }
  store->ctx = &slots;
  store->slot_bytes = slot_bytes;
  store->erase = slots_erase;
  store->write = slots_write;
  store->map = slots_map;
}
