/* The Pico 2's model slots (docs/serial-protocol.md, "Model slots"): two slots at the top of its 4 MiB QSPI flash,
 * written through the boot ROM's flash functions and read in place through the XIP window, so a model loaded over
 * the serial link survives a power cycle and runs where it lies.
 *
 * While the flash is erased or programmed it cannot be read, so nothing may execute from it: the one function that
 * drives the ROM (flash_op) is MX_RAMFUNC, runs with interrupts off (a handler lives in flash), and calls nothing but
 * the ROM functions, through pointers looked up beforehand (tests/test_pico2_flash_slots.py checks its code in the
 * ELF). Everything else (bounds, the page buffer, verifying) runs from flash before or after. Core 1 is never
 * started by this firmware, so it cannot be fetching from flash meanwhile. */
#include <stddef.h>
#include <stdint.h>

#include "flash_rom.h"
#include "mx_platform.h"
#include "mx_serial.h"

/* Where the slots are: set by the board file ([c].defines in pico2.toml, whose flash region ends where they start,
 * so no firmware can grow into them). */
#ifndef MX_FLASH_SLOTS_OFFSET
#define MX_FLASH_SLOTS_OFFSET 0x300000u
#endif
#ifndef MX_FLASH_SLOT_BYTES
#define MX_FLASH_SLOT_BYTES 0x80000u
#endif
#define MX_FLASH_BYTES 0x400000u /* the Pico 2's W25Q32 */
#define SECTOR 4096u             /* the smallest erase (20h) */
#define BLOCK 65536u             /* the erase the ROM uses where aligned (D8h): ~10x faster per byte */
#define PAGE 256u                /* the largest program (02h); a page may be programmed again: only 1 -> 0 */

_Static_assert(MX_FLASH_SLOTS_OFFSET % SECTOR == 0 && MX_FLASH_SLOT_BYTES % SECTOR == 0, "slots are whole sectors");
_Static_assert(MX_FLASH_SLOTS_OFFSET + 2u * MX_FLASH_SLOT_BYTES <= MX_FLASH_BYTES, "both slots fit the flash");
_Static_assert(MX_FLASH_SLOT_BYTES > MX_SERIAL_SLOT_HEADER, "a slot holds a header and an image");

typedef struct flash_rom {
  mx_rom_void_fn connect, exit_xip, flush, xip_setup;
  mx_rom_erase_fn erase;
  mx_rom_program_fn program;
} flash_rom;

typedef struct flash_slots {
  flash_rom rom;
  int ready; /* every ROM function was found; else erase and write fail (a load is refused, 0x050A) */
  uint32_t xip_setup[MX_FLASH_XIP_SETUP_WORDS]; /* the boot ROM's XIP setup function, copied to SRAM */
  uint8_t page[PAGE] __attribute__((aligned(4)));
} flash_slots;

static flash_slots slots; /* in .bss: SRAM, readable while the flash is not */

/* One erase (data NULL: count bytes from offset, whole sectors) or program (count bytes of whole pages from data,
 * which is in SRAM). The ROM's sequence, as pico-sdk's flash_range_erase/program: connect the QMI to the QSPI
 * pads, take the flash out of continuous-read (XIP) mode, the operation, flush the XIP cache (it may hold the old
 * bytes), then the XIP setup function restores fast XIP reads. Interrupts stay off throughout. */
MX_RAMFUNC static void flash_op(const flash_rom *rom, uint32_t offset, const uint8_t *data, uint32_t count) {
  const uint32_t primask = mx_flash_irq_off();
  rom->connect();
  rom->exit_xip();
  if (data == NULL) {
    rom->erase(offset, count, BLOCK, 0xD8u);
  } else {
    rom->program(offset, data, count);
  }
  rom->flush();
  rom->xip_setup();
  mx_flash_irq_restore(primask);
}

static uint32_t slot_offset(uint32_t slot) { return MX_FLASH_SLOTS_OFFSET + slot * MX_FLASH_SLOT_BYTES; }

static const uint8_t *xip(uint32_t offset) { return (const uint8_t *)(uintptr_t)(MX_FLASH_XIP_BASE + offset); }

/* Erases in 64 KiB steps (a slot's sectors, which the ROM turns into block erases where aligned) and lets
 * interrupts in between, so that none waits for a whole slot (up to seconds). Then checks the slot reads 0xFF. */
static int slots_erase(void *ctx, uint32_t slot) {
  (void)ctx;
  if (!slots.ready || slot > 1u) return -1;
  const uint32_t base = slot_offset(slot);
  for (uint32_t done = 0; done < MX_FLASH_SLOT_BYTES; done += BLOCK) {
    const uint32_t n = MX_FLASH_SLOT_BYTES - done < BLOCK ? MX_FLASH_SLOT_BYTES - done : BLOCK;
    flash_op(&slots.rom, base + done, NULL, n);
  }
  const uint32_t *words = (const uint32_t *)(const void *)xip(base);
  for (uint32_t i = 0; i < MX_FLASH_SLOT_BYTES / 4u; i++) {
    if (words[i] != 0xFFFFFFFFu) return -1;
  }
  return 0;
}

/* Programs data at offset in the slot page by page: each page is first assembled in SRAM, 0xFF (which programs
 * nothing) around the bytes written, since the ROM programs whole aligned pages and data may straddle them or be
 * any length. Then reads the bytes back through XIP: a bit that should be 1 but was already 0 (a write over
 * different bytes) or a failing flash makes the write fail, instead of leaving an image whose CRC fails later. */
static int slots_write(void *ctx, uint32_t slot, uint32_t offset, const void *data, uint32_t len) {
  (void)ctx;
  if (!slots.ready || slot > 1u || offset > MX_FLASH_SLOT_BYTES || len > MX_FLASH_SLOT_BYTES - offset) return -1;
  const uint8_t *src = data;
  uint32_t at = slot_offset(slot) + offset; /* flash offset of src[0] */
  const uint32_t end = at + len;
  while (at < end) {
    const uint32_t page = at & ~(PAGE - 1u);
    const uint32_t from = at - page, to = end - page < PAGE ? end - page : PAGE;
    for (uint32_t i = 0; i < PAGE; i++) slots.page[i] = i >= from && i < to ? src[i - from] : 0xFFu;
    flash_op(&slots.rom, page, slots.page, PAGE);
    const uint8_t *now = xip(page);
    for (uint32_t i = from; i < to; i++) {
      if (now[i] != slots.page[i]) return -1;
    }
    src += to - from;
    at = page + to;
  }
  return 0;
}

/* The slot in the XIP window: every flash_op ends with a cache flush, so it reads what was written. */
static const uint8_t *slots_map(void *ctx, uint32_t slot) {
  (void)ctx;
  return xip(slot_offset(slot & 1u));
}

/* The serving firmware's seam (runtime_c/firmware/mx_serve.h). The slots are memory-mapped flash: no RAM copy is
 * needed, and their size is the flash layout's, so ram and slot_bytes are not used. */
void mx_slot_store_open(mx_slot_store *store, uint8_t *ram, uint32_t slot_bytes) {
  (void)ram;
  (void)slot_bytes;
  const mx_rom_lookup_fn lookup = mx_flash_rom_lookup();
  flash_rom *rom = &slots.rom;
  rom->connect = (mx_rom_void_fn)lookup(MX_ROM_CONNECT_INTERNAL_FLASH, MX_ROM_FLAG_FUNC_ARM_SEC);
  rom->exit_xip = (mx_rom_void_fn)lookup(MX_ROM_FLASH_EXIT_XIP, MX_ROM_FLAG_FUNC_ARM_SEC);
  rom->erase = (mx_rom_erase_fn)lookup(MX_ROM_FLASH_RANGE_ERASE, MX_ROM_FLAG_FUNC_ARM_SEC);
  rom->program = (mx_rom_program_fn)lookup(MX_ROM_FLASH_RANGE_PROGRAM, MX_ROM_FLAG_FUNC_ARM_SEC);
  rom->flush = (mx_rom_void_fn)lookup(MX_ROM_FLASH_FLUSH_CACHE, MX_ROM_FLAG_FUNC_ARM_SEC);
  /* Copied now, while XIP is as the boot ROM set it, and before any flash operation. */
  for (uint32_t i = 0; i < MX_FLASH_XIP_SETUP_WORDS; i++) slots.xip_setup[i] = MX_FLASH_BOOTRAM_XIP_SETUP[i];
  rom->xip_setup = MX_FLASH_XIP_SETUP_ENTRY(slots.xip_setup);
  slots.ready = rom->connect && rom->exit_xip && rom->erase && rom->program && rom->flush;
  store->ctx = &slots;
  store->slot_bytes = MX_FLASH_SLOT_BYTES;
  store->erase = slots_erase;
  store->write = slots_write;
  store->map = slots_map;
}
