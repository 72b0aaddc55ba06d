/* The register semantics shared by the RAM register files (ethosu_regfile.h). */
#include "ethosu_regfile.h"

int mx_ethosu_regfile_in_range(uint32_t bytes, uint32_t offset) { return offset < bytes && (offset & 3u) == 0; }

void mx_ethosu_regfile_reset(uint32_t *regs, uint32_t bytes, uint32_t id, uint32_t config, uint32_t prot) {
  for (uint32_t i = 0; i < bytes / 4u; i++) regs[i] = 0;
  regs[MX_ETHOSU_ID / 4u] = id;
  regs[MX_ETHOSU_CONFIG / 4u] = config;
  regs[MX_ETHOSU_CMD / 4u] = MX_ETHOSU_CMD_RESET_VALUE;
  regs[MX_ETHOSU_PROT / 4u] = prot & (MX_ETHOSU_PROT_PRIVILEGED | MX_ETHOSU_PROT_NON_SECURE);
}

/* PMCR keeps its enable and mask bits; the reset bits zero their counters (those inside the file) and read 0. */
static void pmcr(uint32_t *regs, uint32_t bytes, uint32_t value) {
  regs[MX_ETHOSU_PMCR / 4u] = value & ~(MX_ETHOSU_PMCR_EVENT_CNT_RST | MX_ETHOSU_PMCR_CYCLE_CNT_RST);
  if (value & MX_ETHOSU_PMCR_CYCLE_CNT_RST) regs[MX_ETHOSU_PMCCNTR / 4u] = regs[MX_ETHOSU_PMCCNTR_HI / 4u] = 0;
  for (uint32_t n = 0; n < 4u && (value & MX_ETHOSU_PMCR_EVENT_CNT_RST); n++)
    if (mx_ethosu_regfile_in_range(bytes, MX_ETHOSU_PMEVCNTR(n))) regs[MX_ETHOSU_PMEVCNTR(n) / 4u] = 0;
}

mx_ethosu_regfile_event mx_ethosu_regfile_write(uint32_t *regs, uint32_t bytes, uint32_t id, uint32_t config,
                                                uint32_t offset, uint32_t value) {
  uint32_t *status = &regs[MX_ETHOSU_STATUS / 4u];
  switch (offset) {
    case MX_ETHOSU_ID:
    case MX_ETHOSU_STATUS:
    case MX_ETHOSU_QREAD:
    case MX_ETHOSU_PROT:
    case MX_ETHOSU_CONFIG: return MX_ETHOSU_REGFILE_WRITTEN;
    case MX_ETHOSU_RESET: mx_ethosu_regfile_reset(regs, bytes, id, config, value); return MX_ETHOSU_REGFILE_RESET;
    case MX_ETHOSU_CMD:
      regs[MX_ETHOSU_CMD / 4u] = value & (MX_ETHOSU_CMD_CLOCK_Q | MX_ETHOSU_CMD_POWER_Q);
      if (value & MX_ETHOSU_CMD_CLEAR_IRQ) *status &= ~MX_ETHOSU_STATUS_IRQ_RAISED;
      *status &= ~(value & MX_ETHOSU_CMD_CLEAR_IRQ_HISTORY);
      return (value & MX_ETHOSU_CMD_START) ? MX_ETHOSU_REGFILE_START : MX_ETHOSU_REGFILE_WRITTEN;
    case MX_ETHOSU_QBASE:
    case MX_ETHOSU_QBASE_HI:
    case MX_ETHOSU_QSIZE:
      if (!(*status & MX_ETHOSU_STATUS_RUNNING)) *status &= ~MX_ETHOSU_STATUS_CMD_END_REACHED;
      regs[offset / 4u] = value;
      return MX_ETHOSU_REGFILE_WRITTEN;
    case MX_ETHOSU_PMCR: pmcr(regs, bytes, value); return MX_ETHOSU_REGFILE_WRITTEN;
    case MX_ETHOSU_PMCNTENSET:
    case MX_ETHOSU_PMCNTENCLR: {
      uint32_t on = regs[MX_ETHOSU_PMCNTENSET / 4u];
      on = offset == MX_ETHOSU_PMCNTENSET ? on | value : on & ~value;
      regs[MX_ETHOSU_PMCNTENSET / 4u] = regs[MX_ETHOSU_PMCNTENCLR / 4u] = on;
      return MX_ETHOSU_REGFILE_WRITTEN;
    }
    default: regs[offset / 4u] = value; return MX_ETHOSU_REGFILE_WRITTEN;
  }
}

void mx_ethosu_regfile_count_cycles(uint32_t *regs, uint32_t bytes, uint64_t cycles) {
  if (!mx_ethosu_regfile_in_range(bytes, MX_ETHOSU_PMCCNTR_HI)) return;
  if (!(regs[MX_ETHOSU_PMCR / 4u] & MX_ETHOSU_PMCR_CNT_EN)) return;
  if (!(regs[MX_ETHOSU_PMCNTENSET / 4u] & MX_ETHOSU_PMCNT_CYCLE)) return;
  uint64_t now = (uint64_t)(regs[MX_ETHOSU_PMCCNTR_HI / 4u] & MX_ETHOSU_PMCCNTR_HI_MASK) << 32;
  now = (now + regs[MX_ETHOSU_PMCCNTR / 4u] + cycles) & 0xFFFFFFFFFFFFull; /* 48 bits, wrapping as the NPU's */
  regs[MX_ETHOSU_PMCCNTR / 4u] = (uint32_t)now;
  regs[MX_ETHOSU_PMCCNTR_HI / 4u] = (uint32_t)(now >> 32);
}
