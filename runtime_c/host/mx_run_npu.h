/* mx_run's Ethos-U: the platform side of EthosUBackend (runtime_c/backends/ethosu/) on the host.
 *
 * The backend drives our driver (boards/ethosu/) against a register file in RAM (ethosu_io_ram.c) whose start
 * hook stands for the NPU. mx_run_npu.c owns the NPU (set up for each payload as Vela compiled it: U55, U65 or
 * U85, its CONFIG word; the environment's MX_RUN_NPU_CONFIG, a CONFIG word, pins it instead), the regions of the current job and the scratch for ExecuTorch's programs; the start
 * hook is one of two files, chosen by CMake:
 *   mx_run_npu_sim.c    reads QBASE/QSIZE/BASEPn from the registers and runs the command stream on our
 *                       simulator (fvp/ethosu_sim/npu_exec.h: mx_npu_execute), each region bounded by the size
 *                       the backend gave for it;
 *   mx_run_npu_check.c  (MX_NPU_CHECK=ON, tests only) reports the programmed job on stderr and writes a known
 *                       pattern over the scratch instead of simulating.
 * A failing job sets a STATUS fault, so the driver and the backend fail the call; the reason in words is
 * mx_run_npu_note(), which mx_run adds to its error line. */
#ifndef MX_RUN_NPU_H
#define MX_RUN_NPU_H

#include <stddef.h>
#include <stdint.h>

#include "ethosu_backend.h"
#include "ethosu_io_ram.h"
#include "mx/runtime.h"
#include "npu_exec.h"

/* ---- mx_run.c's side ---- */

/* Once a method has loaded: where the program and the planned arenas are (arenas[0] unused). */
void mx_run_npu_memory(const uint8_t *program, size_t program_size, const mx_span *arenas, uint32_t arena_count);

/* Why the last NPU job failed, one line without a newline; NULL when none failed. */
const char *mx_run_npu_note(void);

/* ---- between mx_run_npu.c and the start hook ---- */

/* The start hook: the driver wrote CMD.start. Runs the job and sets STATUS (cmd_end_reached | irq_raised, or a
 * fault bit with mx_run_npu_say saying why). */
void mx_run_npu_start(mx_ethosu_io *io, void *ctx);

/* The OPTIMIZER_CONFIG word of the payload being run (0 when it has none). */
uint32_t mx_run_npu_payload_config(void);

/* Region n as the NPU reads it from BASEPn (base: the register pair's value): the memory the current job gave
 * for region n when base points at it, else no memory (data NULL, size 0), so every access there is refused. */
mx_npu_region mx_run_npu_region(int n, uint64_t base);

/* Sets the note (printf-style). */
void mx_run_npu_say(const char *fmt, ...);

/* `address` as "program+<offset>", "arena<id>+<offset>", "host_scratch+<offset>" (mx_ethosu_platform_scratch's),
 * "fast_scratch+<offset>" (the host's region 2), "0" or "elsewhere" (check hook). */
void mx_run_npu_where(uint64_t address, char *buf, size_t cap);

#endif
