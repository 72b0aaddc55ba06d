/* The host's register access: the NPU's registers as a file in RAM, for running the driver off the device.
 *
 * The file keeps the registers' values and models the few side effects the driver relies on (Arm's register
 * descriptions, see ethosu_regs.h):
 *   - ID, CONFIG, STATUS, PROT and QREAD are read-only to the driver: its writes there are logged, not stored.
 *   - RESET: every register but ID and CONFIG returns to its reset value (CMD 0xC, the rest 0), PROT takes the
 *     written privilege/security bits, then the reset hook runs (it may set STATUS.reset_status to hold the
 *     reset). While STATUS.reset_status is set, other registers read 0 and writes are ignored.
 *   - CMD: keeps the Q-interface bits; clear_irq clears STATUS.irq_raised; start calls the start hook, which
 *     stands for the NPU: it reads the job from the registers and sets STATUS (a simulator, or a test).
 *   - QBASE, QBASE_HI and QSIZE: clear STATUS.cmd_end_reached while the NPU is stopped.
 *   - PMU: PMCR's reset bits zero the counters, PMCNTENSET/CLR keep one enable mask; the cycle counter moves by
 *     what the NPU's side says a job took (mx_ethosu_ram_count_cycles).
 * Every write by the driver is logged (the last MX_ETHOSU_RAM_LOG) and every read counted per register.
 * The simulator and tests use peek/poke, which neither log nor count nor trigger side effects.
 */
#ifndef MX_ETHOSU_IO_RAM_H
#define MX_ETHOSU_IO_RAM_H

#include <stddef.h>
#include <stdint.h>

#include "ethosu_io.h"
#include "ethosu_regs.h"

#define MX_ETHOSU_RAM_WORDS (MX_ETHOSU_REGISTER_BYTES / 4u)
#define MX_ETHOSU_RAM_LOG 512u

typedef void (*mx_ethosu_ram_hook)(mx_ethosu_io *io, void *ctx);

struct mx_ethosu_io {
  uint32_t regs[MX_ETHOSU_RAM_WORDS];
  uint32_t reads[MX_ETHOSU_RAM_WORDS]; /* driver reads per register */
  uint32_t log_offset[MX_ETHOSU_RAM_LOG], log_value[MX_ETHOSU_RAM_LOG];
  uint32_t writes;     /* driver writes so far; the log keeps the last MX_ETHOSU_RAM_LOG */
  uint32_t bad;        /* accesses outside the register space or not word-aligned */
  uint32_t id, config; /* what ID and CONFIG read */
  mx_ethosu_ram_hook on_start, on_reset;
  void *ctx;
};

/* A register file that reads `id` and `config`, in the state after reset; no hooks. */
void mx_ethosu_ram_init(mx_ethosu_io *io, uint32_t id, uint32_t config);
void mx_ethosu_ram_set_hooks(mx_ethosu_io *io, mx_ethosu_ram_hook on_start, mx_ethosu_ram_hook on_reset, void *ctx);
size_t mx_ethosu_ram_size(void);

/* The NPU's side (simulator, test): no log, no count, no side effect. */
uint32_t mx_ethosu_ram_peek(const mx_ethosu_io *io, uint32_t offset);
void mx_ethosu_ram_poke(mx_ethosu_io *io, uint32_t offset, uint32_t value);
/* The job took `cycles` NPU cycles: the PMU's cycle counter advances if the driver let it count
 * (mx_ethosu_regfile_count_cycles). */
void mx_ethosu_ram_count_cycles(mx_ethosu_io *io, uint64_t cycles);

/* What the driver did. */
uint32_t mx_ethosu_ram_reads(const mx_ethosu_io *io, uint32_t offset);
uint32_t mx_ethosu_ram_writes(const mx_ethosu_io *io);
/* The driver's write number `n` (0 = the first since init or the last clear): 0 and its offset and value,
 * or -1 when it is not (or no longer) in the log. */
int mx_ethosu_ram_write_at(const mx_ethosu_io *io, uint32_t n, uint32_t *offset, uint32_t *value);
void mx_ethosu_ram_clear_log(mx_ethosu_io *io); /* the write log and the read counts */
uint32_t mx_ethosu_ram_bad_accesses(const mx_ethosu_io *io);

#endif /* MX_ETHOSU_IO_RAM_H */
