/* The host test's stand-in for the RP2350 facts of boards/rp2350/flash_rom.h (tests/test_pico2_flash_slots.py):
 * (rp2350_fake_flash.c) a RAM array is the flash and its XIP window, a fake ROM table hands out functions that act on it and log each
 * call, and "interrupts" are a flag the fake ROM checks. Included by flash_rom.h through MX_FLASH_ROM_FAKE. */
#ifndef MX_RP2350_FAKE_FLASH_H
#define MX_RP2350_FAKE_FLASH_H

#include <stdint.h>

#define MX_FAKE_FLASH_BYTES (4u << 20)
extern uint8_t mx_fake_flash[MX_FAKE_FLASH_BYTES];
extern uint32_t mx_fake_bootram[64];
extern int mx_fake_irq_enabled;
extern int mx_fake_missing_program; /* the ROM table then has no flash_range_program */
extern int mx_fake_verbose;         /* print each ROM call */
void mx_fake_violation(const char *what);

mx_rom_lookup_fn mx_fake_rom_lookup_fn(void);
mx_rom_void_fn mx_fake_xip_setup_entry(const uint32_t *copy);
uint32_t mx_fake_irq_off(void);
void mx_fake_irq_restore(uint32_t state);

#define MX_FLASH_XIP_BASE ((uintptr_t)mx_fake_flash)
#define MX_FLASH_BOOTRAM_XIP_SETUP mx_fake_bootram
#define MX_FLASH_XIP_SETUP_WORDS 64u
#define MX_FLASH_XIP_SETUP_ENTRY(copy) mx_fake_xip_setup_entry(copy)
static inline mx_rom_lookup_fn mx_flash_rom_lookup(void) { return mx_fake_rom_lookup_fn(); }
static inline uint32_t mx_flash_irq_off(void) { return mx_fake_irq_off(); }
static inline void mx_flash_irq_restore(uint32_t state) { mx_fake_irq_restore(state); }

#endif
