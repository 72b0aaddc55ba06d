/* The RP2350 facts slot_store_flash.c needs to program its own flash: where the boot ROM's function lookup and the
 * XIP setup function are, the XIP window, and masking interrupts. Kept apart so that the host test
 * (tests/test_pico2_flash_slots.py) can compile the slot store against a fake ROM and a RAM "flash": it passes
 * -DMX_FLASH_ROM_FAKE='"header"' and that header defines the same names. Everything here is inline (or a macro):
 * it is used from RAM-resident code, which must not call into flash. */
#ifndef MX_FLASH_ROM_H
#define MX_FLASH_ROM_H

#include <stddef.h>
#include <stdint.h>

/* Boot ROM function signatures (pico-sdk pico/bootrom.h, RP2350 datasheet 5.4.8). addr is an offset from the start
 * of flash, not an XIP address. */
typedef void *(*mx_rom_lookup_fn)(uint32_t code, uint32_t mask);
typedef void (*mx_rom_void_fn)(void);
typedef void (*mx_rom_erase_fn)(uint32_t addr, size_t count, uint32_t block_size, uint8_t block_cmd);
typedef void (*mx_rom_program_fn)(uint32_t addr, const uint8_t *data, size_t count);

/* ROM table codes: two ASCII characters, the first in the low byte (datasheet 5.4.3). */
#define MX_ROM_CODE(c1, c2) ((uint32_t)(c1) | ((uint32_t)(c2) << 8))
#define MX_ROM_CONNECT_INTERNAL_FLASH MX_ROM_CODE('I', 'F')
#define MX_ROM_FLASH_EXIT_XIP MX_ROM_CODE('E', 'X')
#define MX_ROM_FLASH_RANGE_ERASE MX_ROM_CODE('R', 'E')
#define MX_ROM_FLASH_RANGE_PROGRAM MX_ROM_CODE('R', 'P')
#define MX_ROM_FLASH_FLUSH_CACHE MX_ROM_CODE('F', 'C')
/* rom_table_lookup's mask: we run in Arm Secure state (our IMAGE_DEF says so), so we ask for the Secure entry. */
#define MX_ROM_FLAG_FUNC_ARM_SEC 0x0004u

#ifdef MX_FLASH_ROM_FAKE
#include MX_FLASH_ROM_FAKE
#else

/* The XIP window: flash offset 0 appears here, cached (datasheet 2.2). */
#define MX_FLASH_XIP_BASE 0x10000000u

/* rom_table_lookup: a 16-bit pointer at ROM address 0x16 (BOOTROM_TABLE_LOOKUP_OFFSET = the function table's 0x14 +
 * 2). The address goes through an empty asm so that GCC does not take a constant below 4 KiB for a null pointer
 * offset (-Warray-bounds). */
static inline __attribute__((always_inline)) mx_rom_lookup_fn mx_flash_rom_lookup(void) {
  uintptr_t at = 0x16u;
  __asm__("" : "+r"(at));
  return (mx_rom_lookup_fn)(uintptr_t) * (const volatile uint16_t *)at;
}

/* After a flash boot the boot ROM leaves, at the start of boot RAM, a function that puts the QSPI flash back into the
 * XIP mode and clock divider it found while scanning (flash_exit_xip leaves only slow 03h reads). pico-sdk copies
 * its 256 bytes to SRAM before a flash operation and calls the copy afterwards; so do we. */
#define MX_FLASH_BOOTRAM_XIP_SETUP ((const volatile uint32_t *)0x400E0000u)
#define MX_FLASH_XIP_SETUP_WORDS 64u
/* A Thumb function's address has bit 0 set. */
#define MX_FLASH_XIP_SETUP_ENTRY(copy) ((mx_rom_void_fn)((uintptr_t)(copy) | 1u))

/* PRIMASK: interrupts off while the flash is not readable (a handler in flash would fetch from it). */
static inline __attribute__((always_inline)) uint32_t mx_flash_irq_off(void) {
  uint32_t primask;
  __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
  return primask;
}
static inline __attribute__((always_inline)) void mx_flash_irq_restore(uint32_t primask) {
  __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}
#endif

#endif
