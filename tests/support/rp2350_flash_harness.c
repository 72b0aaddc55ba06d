/* Host harness for boards/rp2350/slot_store_flash.c (tests/test_pico2_flash_slots.py): the fake ROM and flash of
 * rp2350_fake_flash.h, and scenarios chosen by argv[1]. Every ROM call is printed as one line ("IF", "EX",
 * "RE addr count block cmd", "RP addr count", "FC", "XS"); a broken rule of the real ROM and flash (a call out of
 * order, with interrupts on, misaligned, or a program that would set a bit) prints "VIOLATION ..." and exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_rom.h"
#include "mx_serial.h"

/* The slot store's one entry point (runtime_c/firmware/mx_serve.h in serving firmware). */
void mx_slot_store_open(mx_slot_store *store, uint8_t *ram, uint32_t slot_bytes);

uint8_t mx_fake_flash[MX_FAKE_FLASH_BYTES];
uint32_t mx_fake_bootram[64];
int mx_fake_irq_enabled = 1;
static int connected, serial_mode, missing_program;

static void violation(const char *what) {
  printf("VIOLATION %s\n", what);
  exit(1);
}
static void need_irq_off(const char *who) {
  if (mx_fake_irq_enabled) violation(who);
}

static void rom_connect(void) {
  need_irq_off("IF with interrupts on");
  connected = 1;
  printf("IF\n");
}
static void rom_exit_xip(void) {
  need_irq_off("EX with interrupts on");
  if (!connected) violation("EX before IF");
  serial_mode = 1;
  printf("EX\n");
}
static void rom_erase(uint32_t addr, size_t count, uint32_t block_size, uint8_t block_cmd) {
  need_irq_off("RE with interrupts on");
  if (!serial_mode) violation("RE before EX");
  if (addr % 4096u || count % 4096u || addr + count > MX_FAKE_FLASH_BYTES) violation("RE not whole sectors");
  memset(mx_fake_flash + addr, 0xFF, count);
  printf("RE %#x %#zx %#x %#x\n", addr, count, block_size, block_cmd);
}
static void rom_program(uint32_t addr, const uint8_t *data, size_t count) {
  need_irq_off("RP with interrupts on");
  if (!serial_mode) violation("RP before EX");
  if (addr % 256u || count % 256u || addr + count > MX_FAKE_FLASH_BYTES) violation("RP not whole pages");
  if (data >= mx_fake_flash && data < mx_fake_flash + MX_FAKE_FLASH_BYTES) violation("RP data in flash");
  for (size_t i = 0; i < count; i++) mx_fake_flash[addr + i] &= data[i]; /* NOR flash: programming only clears */
  printf("RP %#x %#zx\n", addr, count);
}
static void rom_flush(void) {
  need_irq_off("FC with interrupts on");
  if (!serial_mode) violation("FC before EX");
  printf("FC\n");
}
static void xip_setup(void) {
  need_irq_off("XS with interrupts on");
  serial_mode = connected = 0;
  printf("XS\n");
}

static void *lookup(uint32_t code, uint32_t mask) {
  if (mask != MX_ROM_FLAG_FUNC_ARM_SEC) violation("lookup mask is not Arm Secure");
  switch (code) {
    case MX_ROM_CODE('I', 'F'): return (void *)rom_connect;
    case MX_ROM_CODE('E', 'X'): return (void *)rom_exit_xip;
    case MX_ROM_CODE('R', 'E'): return (void *)rom_erase;
    case MX_ROM_CODE('R', 'P'): return missing_program ? NULL : (void *)rom_program;
    case MX_ROM_CODE('F', 'C'): return (void *)rom_flush;
    default: return NULL;
  }
}
mx_rom_lookup_fn mx_fake_rom_lookup_fn(void) { return lookup; }

mx_rom_void_fn mx_fake_xip_setup_entry(const uint32_t *copy) {
  if (memcmp(copy, mx_fake_bootram, sizeof mx_fake_bootram) != 0) violation("XIP setup not copied from boot RAM");
  if (copy == mx_fake_bootram) violation("XIP setup called in boot RAM, not from a copy");
  return xip_setup;
}
uint32_t mx_fake_irq_off(void) {
  uint32_t was = (uint32_t)mx_fake_irq_enabled;
  mx_fake_irq_enabled = 0;
  return was;
}
void mx_fake_irq_restore(uint32_t state) {
  if (serial_mode) violation("interrupts back on while XIP is off");
  mx_fake_irq_enabled = (int)state;
}

static uint32_t rng = 12345u;
static uint8_t next_byte(void) {
  rng = rng * 1103515245u + 12345u;
  return (uint8_t)(rng >> 16);
}

static void check_outside(uint32_t lo, uint32_t hi) { /* the firmware's bytes (0xA5 here) never touched */
  for (uint32_t i = 0; i < MX_FAKE_FLASH_BYTES; i++) {
    if ((i < lo || i >= hi) && mx_fake_flash[i] != 0xA5) violation("a byte outside the slots changed");
  }
}

#define IMAGE 100000u
#define CHUNK 496u
static uint8_t image[IMAGE];

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  memset(mx_fake_flash, 0xA5, sizeof mx_fake_flash);
  for (int i = 0; i < 64; i++) mx_fake_bootram[i] = 0xB0070000u + (uint32_t)i;
  missing_program = strcmp(what, "missing") == 0;
  mx_slot_store st;
  mx_slot_store_open(&st, NULL, 0);
  const uint32_t base = (uint32_t)(st.map(st.ctx, 0) - mx_fake_flash);
  printf("slots %#x %#x %#x\n", base, (uint32_t)(st.map(st.ctx, 1) - mx_fake_flash), st.slot_bytes);
  if (strcmp(what, "sequence") == 0) {
    printf("erase %d\n", st.erase(st.ctx, 1));
    printf("write %d\n", st.write(st.ctx, 1, 250, "0123456789", 10)); /* straddles a page boundary */
  } else if (strcmp(what, "bits") == 0) {
    const uint8_t f0 = 0xF0, x0f = 0x0F, x00 = 0x00;
    printf("erase %d\n", st.erase(st.ctx, 0));
    printf("write f0 %d\n", st.write(st.ctx, 0, 5, &f0, 1));
    printf("again f0 %d\n", st.write(st.ctx, 0, 5, &f0, 1));   /* a resent chunk: the same bytes */
    printf("write 0f %d\n", st.write(st.ctx, 0, 5, &x0f, 1));  /* would need 1s where there are 0s */
    printf("byte %#x\n", mx_fake_flash[base + 5]);             /* programming only cleared bits */
    printf("write 00 %d\n", st.write(st.ctx, 0, 5, &x00, 1));  /* clearing more is fine */
    printf("slot 2 %d %d\n", st.erase(st.ctx, 2), st.write(st.ctx, 2, 0, &x00, 1));
    printf("past end %d\n", st.write(st.ctx, 0, st.slot_bytes - 1, "ab", 2));
    printf("at end %d\n", st.write(st.ctx, 0, st.slot_bytes - 1, "a", 1));
    check_outside(base, base + 2 * st.slot_bytes);
  } else if (strcmp(what, "model") == 0) {
    for (uint32_t i = 0; i < IMAGE; i++) image[i] = next_byte();
    uint8_t header[MX_SERIAL_SLOT_HEADER] = {'M', 'X', 'S', '1'};
    if (st.erase(st.ctx, 1) != 0) violation("erase failed");
    const uint32_t chunks = (IMAGE + CHUNK - 1) / CHUNK;
    for (uint32_t k = 0; k < chunks; k++) { /* chunks in any order (a stride prime to their count), some twice */
      const uint32_t c = (k * 7u) % chunks, off = c * CHUNK, n = IMAGE - off < CHUNK ? IMAGE - off : CHUNK;
      for (int times = c % 5 == 0 ? 2 : 1; times > 0; times--) {
        if (st.write(st.ctx, 1, MX_SERIAL_SLOT_HEADER + off, image + off, n) != 0) violation("write failed");
      }
    }
    if (st.write(st.ctx, 1, 0, header, sizeof header) != 0) violation("header write failed");
    const uint8_t *slot = st.map(st.ctx, 1);
    printf("header %s\n", memcmp(slot, header, sizeof header) == 0 ? "ok" : "differs");
    printf("image %s\n", memcmp(slot + MX_SERIAL_SLOT_HEADER, image, IMAGE) == 0 ? "ok" : "differs");
    uint32_t erased = 1;
    for (uint32_t i = MX_SERIAL_SLOT_HEADER + IMAGE; i < st.slot_bytes; i++) erased &= slot[i] == 0xFF;
    printf("rest erased %u\n", erased);
    check_outside(base + st.slot_bytes, base + 2 * st.slot_bytes);
  } else if (strcmp(what, "missing") == 0) {
    const uint8_t x = 0;
    printf("erase %d write %d\n", st.erase(st.ctx, 0), st.write(st.ctx, 0, 0, &x, 1));
  }
  printf("irq %d\n", mx_fake_irq_enabled);
  return 0;
}
