/* The NPU's cycle counter around one job (ethosu_pmu.h). */
#include "ethosu_pmu.h"

#include "ethosu_regs.h"

uint32_t mx_ethosu_pmu_offset(unsigned product) {
  return product == MX_ETHOSU_PRODUCT_U85 ? MX_ETHOSU_PMU_U85_OFFSET : 0u;
}

void mx_ethosu_pmu_start(mx_ethosu_io *io, unsigned product) {
  uint32_t at = mx_ethosu_pmu_offset(product);
  mx_ethosu_io_write(io, at + MX_ETHOSU_PMCNTENCLR, MX_ETHOSU_PMCNT_CYCLE);
  /* An earlier user (a profiler, a debugger) may have left start/stop events: back to the reset value, NO_EVENT
   * for both, as the register is when nobody set it (ethosu_regs.h). */
  mx_ethosu_io_write(io, at + MX_ETHOSU_PMCCNTR_CFG, 0u);
  /* Counting on and the cycle counter zeroed in one write (the reset bit acts once, it is not kept); the event
   * counters are left as they are. */
  mx_ethosu_io_write(io, at + MX_ETHOSU_PMCR, MX_ETHOSU_PMCR_CNT_EN | MX_ETHOSU_PMCR_CYCLE_CNT_RST);
  mx_ethosu_io_write(io, at + MX_ETHOSU_PMCNTENSET, MX_ETHOSU_PMCNT_CYCLE);
}

uint64_t mx_ethosu_pmu_stop(mx_ethosu_io *io, unsigned product) {
  uint32_t at = mx_ethosu_pmu_offset(product);
  mx_ethosu_io_write(io, at + MX_ETHOSU_PMCNTENCLR, MX_ETHOSU_PMCNT_CYCLE);
  uint32_t lo = mx_ethosu_io_read(io, at + MX_ETHOSU_PMCCNTR);
  uint32_t hi = mx_ethosu_io_read(io, at + MX_ETHOSU_PMCCNTR_HI) & MX_ETHOSU_PMCCNTR_HI_MASK;
  return (uint64_t)hi << 32 | lo;
}
