/* Host harness for boards/rp2350/slot_store_flash.c (tests/test_pico2_flash_slots.py): scenarios chosen by argv[1]
 * against the fake ROM and flash of rp2350_fake_flash.c, which prints every ROM call as one line ("IF", "EX",
 * "RE addr count block cmd", "RP addr count", "FC", "XS"); a broken rule of the real ROM and flash (a call out of
 * order, with interrupts on, misaligned, or a program that would set a bit) prints "VIOLATION ..." and exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_rom.h"
#include "mx_serial.h"

/* The slot store's one entry point (runtime_c/firmware/mx_serve.h in serving firmware). */
void mx_slot_store_open(mx_slot_store *store, uint8_t *ram, uint32_t slot_bytes);

static uint32_t rng = 12345u;
static uint8_t next_byte(void) {
  rng = rng * 1103515245u + 12345u;
  return (uint8_t)(rng >> 16);
}

static void check_outside(uint32_t lo, uint32_t hi) { /* the firmware's bytes (0xA5 here) never touched */
  for (uint32_t i = 0; i < MX_FAKE_FLASH_BYTES; i++) {
    if ((i < lo || i >= hi) && mx_fake_flash[i] != 0xA5) mx_fake_violation("a byte outside the slots changed");
  }
}

#define IMAGE 100000u
#define CHUNK 496u
static uint8_t image[IMAGE];

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  memset(mx_fake_flash, 0xA5, sizeof mx_fake_flash);
  for (int i = 0; i < 64; i++) mx_fake_bootram[i] = 0xB0070000u + (uint32_t)i;
  mx_fake_missing_program = strcmp(what, "missing") == 0;
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
    if (st.erase(st.ctx, 1) != 0) mx_fake_violation("erase failed");
    const uint32_t chunks = (IMAGE + CHUNK - 1) / CHUNK;
    for (uint32_t k = 0; k < chunks; k++) { /* chunks in any order (a stride prime to their count), some twice */
      const uint32_t c = (k * 7u) % chunks, off = c * CHUNK, n = IMAGE - off < CHUNK ? IMAGE - off : CHUNK;
      for (int times = c % 5 == 0 ? 2 : 1; times > 0; times--) {
        if (st.write(st.ctx, 1, MX_SERIAL_SLOT_HEADER + off, image + off, n) != 0) mx_fake_violation("write failed");
      }
    }
    if (st.write(st.ctx, 1, 0, header, sizeof header) != 0) mx_fake_violation("header write failed");
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
