/* The NPU's cycle counter (PMU), read around one job: how many NPU cycles the job took.
 *
 * The driver (ethosu_driver.c) calls start just before CMD.start and stop once the job's end was seen, and keeps
 * the count in mx_ethosu.cycles. Both go through the driver's register seam (ethosu_io.h), so the same code counts
 * on silicon, on an FVP, and against a RAM register file (the host's, or the QEMU seam's, where the host's
 * executor says how many cycles the job took). Facts: ethosu_regs.h ("PMU"); README.md gives their sources.
 *
 * A count of 0 after a job means no PMU answered (the registers read 0): report nothing rather than 0 cycles.
 */
#ifndef MX_ETHOSU_PMU_H
#define MX_ETHOSU_PMU_H

#include <stdint.h>

#include "ethosu_io.h"

/* The PMU block's offset from the NPU's base for CONFIG.product `product` (0 on the U55/U65, 0x1000 on the U85). */
uint32_t mx_ethosu_pmu_offset(unsigned product);

/* Zeroes the 48-bit cycle counter and starts it: PMCNTENCLR = cycle (stopped while it is set up), PMCCNTR_CFG = 0
 * (no start/stop event, its reset value), PMCR = cnt_en | cycle_cnt_rst, PMCNTENSET = cycle. */
void mx_ethosu_pmu_start(mx_ethosu_io *io, unsigned product);

/* Stops the cycle counter (PMCNTENCLR = cycle), so that its two words cannot move between the reads, and returns
 * its 48 bits (PMCCNTR, then PMCCNTR_HI's bits 0-15). */
uint64_t mx_ethosu_pmu_stop(mx_ethosu_io *io, unsigned product);

#endif /* MX_ETHOSU_PMU_H */
