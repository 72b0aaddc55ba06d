/* The platform seams: the only functions the runtime and the generated main() call on a board.
 * Each board's data file selects the translation units that define them (boards/<family>/...). */
#ifndef MX_PLATFORM_H
#define MX_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* Exit codes the host runners recognise (apart from main's own return value). */
#define MX_EXIT_HARD_FAULT 253

void mx_platform_init(void);
void mx_platform_putc(int c);
int mx_platform_getc(void);            /* blocks until a byte arrives on the UART */
uint64_t mx_platform_ticks(void);      /* CPU clock ticks since mx_platform_init ([ticks]) */
void mx_platform_exit(int code) __attribute__((noreturn));
void mx_platform_puts(const char *s);  /* no newline added */
void mx_platform_put_hex(uint32_t value);
void mx_platform_put_dec(int32_t value);
size_t mx_platform_stack_used(void);   /* high-water mark of the painted stack, in bytes */

/* Code that must run from RAM (on the RP2350: anything that runs while the XIP flash is erased or programmed).
 * The linker stores it with .data's initial values and the reset handler copies it to RAM; calls from flash reach it
 * through the linker's long-branch veneers. noinline: an inlined copy would run from flash after all. */
#define MX_RAMFUNC __attribute__((section(".ramfunc"), noinline))

/* Host files through semihosting (simulators, or a debugger that serves semihosting).
 * mode: an fopen mode as the semihosting spec numbers them (MX_SEMIHOST_MODE_RB = "rb", _WB = "wb").
 * Return -1 on failure; read/write return the number of bytes NOT transferred, as the spec does. */
#define MX_SEMIHOST_MODE_RB 1
#define MX_SEMIHOST_MODE_RPLUSB 3   /* read and write, the file must exist */
#define MX_SEMIHOST_MODE_WB 5
#define MX_SEMIHOST_MODE_WPLUSB 7   /* read and write, created or emptied */
int mx_semihost_open(const char *path, int mode);
int mx_semihost_close(int handle);
int mx_semihost_read(int handle, void *buf, size_t len);
int mx_semihost_write(int handle, const void *buf, size_t len);
long mx_semihost_flen(int handle);
/* 1 when a host serves semihosting; 0 on a board without a debugger attached, where every call above fails (-1)
 * instead of faulting (cortex_m/semihost_attached.c; simulators: always 1). */
int mx_semihost_attached(void);
int mx_semihost_seek(int handle, uint32_t position);   /* 0 on success */

/* Instruction-count markers seen by fvp/qemu_icount_plugin.c: the plugin counts guest instructions
 * between mx_icount_begin(tag) and mx_icount_end(tag). tag < MX_ICOUNT_MAX_TAGS; regions with
 * different tags may nest, a tag may not nest inside itself. Costs two instructions on hardware. */
#define MX_ICOUNT_MAX_TAGS 32768u
/* The method's load (its validation of the program), apart from tag 0 (the inference) and the per-instruction
 * tags 1..n; mcu_export/firmware/icount.py LOAD_TAG. */
#define MX_ICOUNT_TAG_LOAD (MX_ICOUNT_MAX_TAGS - 1u)
void mx_icount_hit(const volatile uint8_t *address);
extern const volatile uint8_t __mx_icount_window[];
static inline void mx_icount_begin(uint32_t tag) { mx_icount_hit(&__mx_icount_window[2u * tag]); }
static inline void mx_icount_end(uint32_t tag) { mx_icount_hit(&__mx_icount_window[2u * tag + 1u]); }

#endif
