/* The NPU's registers as a file in RAM: the register semantics that the host's register file (ethosu_io_ram.c)
 * and the seam's (ethosu_io_semihost.c) share, so that the driver meets the same NPU on both. What a start or a
 * reset then does is the owner's (a hook, a semihosting job), so a write reports it instead of doing it.
 *
 *   - ID, CONFIG, STATUS, PROT and QREAD are read-only to the driver.
 *   - RESET: every register but ID and CONFIG returns to its reset value (CMD 0xC, the rest 0), PROT takes the
 *     written privilege/security bits.
 *   - CMD: keeps the Q-interface bits; clear_irq clears STATUS.irq_raised, the history bits their history.
 *   - QBASE, QBASE_HI and QSIZE: clear STATUS.cmd_end_reached while the NPU is stopped.
 *   - PMU (U55/U65 offsets, where the file reaches them): PMCR's cycle_cnt_rst/event_cnt_rst zero their counters
 *     and read 0; PMCNTENSET/PMCNTENCLR set/clear one enable mask that both read. The counters move only when
 *     the owner says how many cycles a job took (mx_ethosu_regfile_count_cycles).
 * `regs` is the file (register at byte offset o in regs[o / 4]); `bytes` its size, from offset 0.
 */
#ifndef MX_ETHOSU_REGFILE_H
#define MX_ETHOSU_REGFILE_H

#include <stdint.h>

#include "ethosu_regs.h"

typedef enum mx_ethosu_regfile_event {
  MX_ETHOSU_REGFILE_WRITTEN, /* nothing more to do */
  MX_ETHOSU_REGFILE_RESET,   /* the file was reset */
  MX_ETHOSU_REGFILE_START,   /* CMD asked for a start */
} mx_ethosu_regfile_event;

/* A word-aligned offset inside the file. */
int mx_ethosu_regfile_in_range(uint32_t bytes, uint32_t offset);

void mx_ethosu_regfile_reset(uint32_t *regs, uint32_t bytes, uint32_t id, uint32_t config, uint32_t prot);

/* The driver's write of `value` at `offset` (in range); ID and CONFIG are what a RESET restores. */
mx_ethosu_regfile_event mx_ethosu_regfile_write(uint32_t *regs, uint32_t bytes, uint32_t id, uint32_t config,
                                                uint32_t offset, uint32_t value);

/* A job took `cycles` NPU cycles: the cycle counter advances by them (48 bits) if PMCR.cnt_en and PMCNTENSET's
 * cycle bit let it count, as the NPU's would; nothing when the file does not reach PMCCNTR_HI. */
void mx_ethosu_regfile_count_cycles(uint32_t *regs, uint32_t bytes, uint64_t cycles);

#endif
