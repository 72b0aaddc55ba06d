/* mx_run's NPU (mx_run_npu.h): the start hook runs the programmed command stream on our simulator. */
#include "mx_run_npu.h"

#include "ethosu_regs.h"

static uint64_t reg64(const mx_ethosu_io *io, uint32_t lo, uint32_t hi) {
  return (uint64_t)mx_ethosu_ram_peek(io, lo) | (uint64_t)mx_ethosu_ram_peek(io, hi) << 32;
}

void mx_run_npu_start(mx_ethosu_io *io, void *ctx) {
  (void)ctx;
  uint64_t qbase = reg64(io, MX_ETHOSU_QBASE, MX_ETHOSU_QBASE_HI);
  uint32_t qsize = mx_ethosu_ram_peek(io, MX_ETHOSU_QSIZE);
  mx_npu_region regions[MX_NPU_REGIONS];
  for (int n = 0; n < MX_NPU_REGIONS; n++)
    regions[n] = mx_run_npu_region(n, reg64(io, MX_ETHOSU_BASEP(n), MX_ETHOSU_BASEP_HI(n)));
  mx_npu_error err = {0};
  /* QBASE is the driver's checked, 16-byte aligned address of the payload's command words. */
  /* The payload's OPTIMIZER_CONFIG says how the weights are laid out (4-channel groups on a U55-32). */
  int rc =
      mx_npu_execute_config((const uint32_t *)(uintptr_t)qbase, qsize / 4u, regions, mx_run_npu_payload_config(), &err);
  uint32_t status = MX_ETHOSU_STATUS_IRQ_RAISED;
  if (rc == 0) {
    status |= MX_ETHOSU_STATUS_CMD_END_REACHED;
  } else {
    mx_run_npu_say("NPU: %s", err.message[0] != '\0' ? err.message : mx_npu_status_text(rc));
    status |= MX_ETHOSU_STATUS_CMD_PARSE_ERROR;
  }
  mx_ethosu_ram_poke(io, MX_ETHOSU_STATUS, status);
}
