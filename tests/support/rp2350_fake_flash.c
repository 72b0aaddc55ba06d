/* The fake boot ROM and flash behind rp2350_fake_flash.h, shared by the slot store's host harnesses
 * (rp2350_flash_harness.c, rp2350_flash_serial.c). Each ROM call is printed as one line when mx_fake_verbose is
 * set; a call the real ROM or flash would not take prints "VIOLATION ..." and exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_rom.h"

uint8_t mx_fake_flash[MX_FAKE_FLASH_BYTES];
uint32_t mx_fake_bootram[64];
int mx_fake_irq_enabled = 1;
static int connected, serial_mode;
int mx_fake_missing_program, mx_fake_verbose = 1;

#define say(...) (mx_fake_verbose ? (void)printf(__VA_ARGS__) : (void)0)

void mx_fake_violation(const char *what) {
  printf("VIOLATION %s\n", what);
  exit(1);
}
static void need_irq_off(const char *who) {
  if (mx_fake_irq_enabled) mx_fake_violation(who);
}

static void rom_connect(void) {
  need_irq_off("IF with interrupts on");
  connected = 1;
  say("IF\n");
}
static void rom_exit_xip(void) {
  need_irq_off("EX with interrupts on");
  if (!connected) mx_fake_violation("EX before IF");
  serial_mode = 1;
  say("EX\n");
}
static void rom_erase(uint32_t addr, size_t count, uint32_t block_size, uint8_t block_cmd) {
  need_irq_off("RE with interrupts on");
  if (!serial_mode) mx_fake_violation("RE before EX");
  if (addr % 4096u || count % 4096u || addr + count > MX_FAKE_FLASH_BYTES) mx_fake_violation("RE not whole sectors");
  memset(mx_fake_flash + addr, 0xFF, count);
  say("RE %#x %#zx %#x %#x\n", addr, count, block_size, block_cmd);
}
static void rom_program(uint32_t addr, const uint8_t *data, size_t count) {
  need_irq_off("RP with interrupts on");
  if (!serial_mode) mx_fake_violation("RP before EX");
  if (addr % 256u || count % 256u || addr + count > MX_FAKE_FLASH_BYTES) mx_fake_violation("RP not whole pages");
  if (data >= mx_fake_flash && data < mx_fake_flash + MX_FAKE_FLASH_BYTES) mx_fake_violation("RP data in flash");
  for (size_t i = 0; i < count; i++) mx_fake_flash[addr + i] &= data[i]; /* NOR flash: programming only clears */
  say("RP %#x %#zx\n", addr, count);
}
static void rom_flush(void) {
  need_irq_off("FC with interrupts on");
  if (!serial_mode) mx_fake_violation("FC before EX");
  say("FC\n");
}
static void xip_setup(void) {
  need_irq_off("XS with interrupts on");
  serial_mode = connected = 0;
  say("XS\n");
}

static void *lookup(uint32_t code, uint32_t mask) {
  if (mask != MX_ROM_FLAG_FUNC_ARM_SEC) mx_fake_violation("lookup mask is not Arm Secure");
  switch (code) {
    case MX_ROM_CODE('I', 'F'): return (void *)rom_connect;
    case MX_ROM_CODE('E', 'X'): return (void *)rom_exit_xip;
    case MX_ROM_CODE('R', 'E'): return (void *)rom_erase;
    case MX_ROM_CODE('R', 'P'): return mx_fake_missing_program ? NULL : (void *)rom_program;
    case MX_ROM_CODE('F', 'C'): return (void *)rom_flush;
    default: return NULL;
  }
}
mx_rom_lookup_fn mx_fake_rom_lookup_fn(void) { return lookup; }

mx_rom_void_fn mx_fake_xip_setup_entry(const uint32_t *copy) {
  if (memcmp(copy, mx_fake_bootram, sizeof mx_fake_bootram) != 0)
    mx_fake_violation("XIP setup not copied from boot RAM");
  if (copy == mx_fake_bootram) mx_fake_violation("XIP setup called in boot RAM, not from a copy");
  return xip_setup;
}
uint32_t mx_fake_irq_off(void) {
  uint32_t was = (uint32_t)mx_fake_irq_enabled;
  mx_fake_irq_enabled = 0;
  return was;
}
void mx_fake_irq_restore(uint32_t state) {
  if (serial_mode) mx_fake_violation("interrupts back on while XIP is off");
  mx_fake_irq_enabled = (int)state;
}
