/* mx_run's NPU for tests (MX_NPU_CHECK=ON; mx_run_npu.h): instead of simulating, the start hook reports the job
 * the driver programmed, one stderr line each (addresses as mx_run_npu_where gives them):
 *   mx_run: npu-check job <k> qbase <where> qsize <bytes>
 *   mx_run: npu-check basep <n> <where> size <bytes the job gave for region n, 0 if BASEPn is not that memory>
 *   mx_run: npu-check scratch <hex of region 1 as the NPU finds it: the inputs at their offsets>
 * then writes byte (i * 29 + 11) mod 256 at every offset i of region 1, so the outputs the backend copies out
 * show where it read them, and ends the job. The test holds all of it to the program (tests/test_runtime_ethosu.py). */
#include <stdio.h>

#include "ethosu_regs.h"
#include "mx_run_npu.h"

static uint64_t reg64(const mx_ethosu_io *io, uint32_t lo, uint32_t hi) {
  return (uint64_t)mx_ethosu_ram_peek(io, lo) | (uint64_t)mx_ethosu_ram_peek(io, hi) << 32;
}

void mx_run_npu_start(mx_ethosu_io *io, void *ctx) {
  static unsigned jobs;
  char where[64];
  (void)ctx;
  mx_run_npu_where(reg64(io, MX_ETHOSU_QBASE, MX_ETHOSU_QBASE_HI), where, sizeof where);
  fprintf(stderr, "mx_run: npu-check job %u qbase %s qsize %u\n", jobs++, where,
          (unsigned)mx_ethosu_ram_peek(io, MX_ETHOSU_QSIZE));
  mx_npu_region scratch = {NULL, 0};
  for (int n = 0; n < MX_NPU_REGIONS; n++) {
    uint64_t base = reg64(io, MX_ETHOSU_BASEP(n), MX_ETHOSU_BASEP_HI(n));
    mx_npu_region r = mx_run_npu_region(n, base);
    mx_run_npu_where(base, where, sizeof where);
    fprintf(stderr, "mx_run: npu-check basep %d %s size %zu\n", n, where, r.size);
    if (n == 1) scratch = r;
  }
  fprintf(stderr, "mx_run: npu-check scratch ");
  for (size_t i = 0; i < scratch.size; i++) fprintf(stderr, "%02x", scratch.data[i]);
  fprintf(stderr, "\n");
  for (size_t i = 0; i < scratch.size; i++) scratch.data[i] = (uint8_t)(i * 29u + 11u);
  mx_ethosu_ram_poke(io, MX_ETHOSU_STATUS, MX_ETHOSU_STATUS_CMD_END_REACHED | MX_ETHOSU_STATUS_IRQ_RAISED);
}
