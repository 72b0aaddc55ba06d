/* EthosUBackend: runs a DelegateCall whose processed data is an Ethos-U blob in ExecuTorch's Arm layout
 * (mcu_export/ethosu/blob.py describes it: 16-byte named blocks vela_bin_stream, cmd_data, weight_data,
 * scratch_size, inputs, outputs, vela_end_stream) on an Ethos-U55, U65 or U85 through our driver
 * (boards/ethosu/).
 *
 * Arguments of the call: the delegate's inputs, then its outputs (ExecuTorch's convention), then, in programs
 * mcu-export writes, one planned uint8 tensor of at least scratch_size bytes: the NPU scratch, which the memory
 * planner placed in an arena. ExecuTorch's own programs have no scratch argument; for those the scratch comes
 * from the platform (mx_ethosu_platform_scratch), as ExecuTorch's runtime takes it from its temp allocator.
 *
 * Load (init, then check per call) refuses what cannot run: a block missing, short, out of order or stored
 * outside the blob; a payload that is not one Vela command stream, or compiled for a product that is none of the
 * three (whether it is the NPU's own product the driver checks at the first run: MX_ETHOSU_E_OPT_PRODUCT, a bad
 * delegate data error, whose two products the platform names); an I/O record outside the scratch or in
 * another region; a call whose tensors disagree with the records (count, element size, bytes); a scratch
 * argument that is not uint8, smaller than scratch_size or not 16-byte aligned.
 * Execute: copies each input to scratch + its offset, hands the job to the platform, runs the driver with the
 * base pointers 0 = weight_data (in place in the program), 1 = scratch, 2 = fast scratch (the platform's),
 * then copies each output from scratch + its offset. */
#ifndef MX_ETHOSU_BACKEND_H
#define MX_ETHOSU_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "ethosu_driver.h"
#include "mx/backend.h"

extern const mx_backend mx_ethosu_backend;

/* sizeof the backend's state (fixed-width fields only: the same on every target; mcu_export/host_runtime.py
 * declares it for the exporter's metadata-pool counts). */
#define MX_ETHOSU_STATE_BYTES 48u

/* Regions the backend sets: 0 weights, 1 scratch, 2 fast scratch (Vela's convention). */
#define MX_ETHOSU_JOB_REGIONS 3

/* One run of a delegate, as the backend hands it to the platform. */
typedef struct mx_ethosu_job {
  const uint8_t *cmd_data; /* Vela's driver payload, in place in the program */
  uint32_t cmd_bytes;
  /* base[n], size[n]: region n as the NPU will see it. The backend sets 0 (weight_data, in place in the
   * program) and 1 (the scratch: size = the blob's scratch_size); region 2 arrives NULL/0 and the platform may
   * provide its fast scratch there (Vela's Dedicated_Sram memory modes need one). */
  uint8_t *base[MX_ETHOSU_JOB_REGIONS];
  uint32_t size[MX_ETHOSU_JOB_REGIONS];
  uint32_t instruction; /* the DelegateCall's instruction index: what the platform reports the job's cycles by */
} mx_ethosu_job;

/* ---- the platform's side: one implementation per build (mx_run: runtime_c/host/mx_run_npu.c) ---------- */

/* Before a run, after the inputs are in the scratch: the NPU to run `job` on, initialised, and the budget of
 * mx_ethosu_run (polls, or ticks with the driver's cfg.ticks). A device cleans the data cache over the payload,
 * the weights and the scratch here (if it has one); the host sets up its simulated NPU for the payload.
 * NULL: no NPU; the run fails with MX_ERR_DELEGATE_FAILED. */
mx_ethosu *mx_ethosu_platform_begin(mx_ethosu_job *job, uint32_t *budget);

/* After the run, whatever its result (`err`: mx_ethosu_run's, or MX_ETHOSU_E_STATE without an NPU); a device
 * invalidates the scratch's cache lines here before the outputs are copied out, and may report the job's
 * cycles (the driver's mx_ethosu.cycles, by job->instruction). */
void mx_ethosu_platform_end(const mx_ethosu_job *job, int err);

/* Scratch for a call that carries none (ExecuTorch's programs): at least `bytes` bytes, 16-byte aligned,
 * NPU-reachable, valid until the next call; NULL: the platform has none (the call is refused at load). */
uint8_t *mx_ethosu_platform_scratch(uint32_t bytes);

/* Whether the platform keeps its report lines (a failed job's reason, the PMU's cycles) off the UART: false in
 * model firmware, whose runners read them there; serving firmware, whose UART carries protocol frames only,
 * replaces this weak default (runtime_c/firmware/serve_npu.c). */
bool mx_ethosu_platform_quiet(void);

#endif
