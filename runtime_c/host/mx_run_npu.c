/* mx_run's Ethos-U platform (mx_run_npu.h): the NPU as a register file in RAM, the current job's regions, the
 * scratch for programs without a scratch argument, and the note that says why a job failed. */
#include "mx_run_npu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ethosu_regs.h"

/* The NPUs the register file plays: ID as Arm's headers reset it (U55 arch 1.1.0, U65 arch 1.0.6, U85 arch
 * 2.0.0); CONFIG is the one the payload was compiled for (its OPTIMIZER_CONFIG), else a U55 with 128 MACs. */
#define ID_U55 0x10104201u
#define ID_U65 0x10066001u
#define ID_U85 0x20007001u
#define CONFIG_U55_128 0x00001807u
#define HOST_BUDGET 16u /* polls: the start hook finishes the job before the driver's first poll */
/* Scratch for programs without a scratch argument: at most what mx_run allows an arena (MAX_ALLOC there). */
#define MAX_SCRATCH_BYTES ((size_t)256 << 20)
/* Fast scratch (region 2) for Vela's Dedicated_Sram memory modes: the Ethos-U65's SRAM, at most 2 MiB. */
#define FAST_SCRATCH_BYTES (2u << 20)

static mx_ethosu_io io;
static mx_ethosu npu;
static uint32_t npu_config;
static int npu_ready;
static mx_ethosu_job job;
static char note[512];
static _Alignas(16) uint8_t fast_scratch[FAST_SCRATCH_BYTES];
static uint8_t *scratch;
static size_t scratch_bytes;

static struct {
  const uint8_t *program;
  size_t program_size;
  const mx_span *arenas;
  uint32_t arena_count;
} memory;

void mx_run_npu_memory(const uint8_t *program, size_t program_size, const mx_span *arenas, uint32_t arena_count) {
  memory.program = program;
  memory.program_size = program_size;
  memory.arenas = arenas;
  memory.arena_count = arena_count;
}

const char *mx_run_npu_note(void) { return note[0] != '\0' ? note : NULL; }

void mx_run_npu_say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(note, sizeof note, fmt, ap);
  va_end(ap);
}

static int inside(uint64_t address, const void *base, size_t size, uint64_t *offset) {
  uint64_t b = (uint64_t)(uintptr_t)base;
  if (base == NULL || address < b || address - b >= size) return 0;
  *offset = address - b;
  return 1;
}

void mx_run_npu_where(uint64_t address, char *buf, size_t cap) {
  uint64_t off;
  if (address == 0) {
    snprintf(buf, cap, "0");
    return;
  }
  if (inside(address, memory.program, memory.program_size, &off)) {
    snprintf(buf, cap, "program+%llu", (unsigned long long)off);
    return;
  }
  if (inside(address, scratch, scratch_bytes, &off)) {
    snprintf(buf, cap, "host_scratch+%llu", (unsigned long long)off);
    return;
  }
  if (inside(address, fast_scratch, sizeof fast_scratch, &off)) {
    snprintf(buf, cap, "fast_scratch+%llu", (unsigned long long)off);
    return;
  }
  for (uint32_t id = 1; id < memory.arena_count; id++) {
    if (inside(address, memory.arenas[id].ptr, memory.arenas[id].size, &off)) {
      snprintf(buf, cap, "arena%u+%llu", id, (unsigned long long)off);
      return;
    }
  }
  snprintf(buf, cap, "elsewhere");
}

mx_npu_region mx_run_npu_region(int n, uint64_t base) {
  mx_npu_region r = {NULL, 0};
  if (n >= 0 && n < MX_ETHOSU_JOB_REGIONS && base != 0 && base == (uint64_t)(uintptr_t)job.base[n]) {
    r.data = job.base[n];
    r.size = job.size[n];
  }
  return r;
}

/* The CONFIG word the payload being run was compiled for, as the driver read it from its OPTIMIZER_CONFIG;
 * without one, the NPU's (a U55-128's unless pinned). */
uint32_t mx_run_npu_payload_config(void) { return npu.job_config != 0 ? npu.job_config : npu_config; }

/* The NPU's CONFIG: MX_RUN_NPU_CONFIG when set (a test's way to give a payload the wrong NPU, as a board
 * would), else the payload's own. */
static uint32_t payload_config(const uint8_t *cmd_data, uint32_t cmd_bytes) {
  const char *pinned = getenv("MX_RUN_NPU_CONFIG");
  if (pinned != NULL && pinned[0] != '\0') return (uint32_t)strtoul(pinned, NULL, 0);
  mx_npu_payload p;
  if (mx_npu_payload_find(cmd_data, cmd_bytes, &p, NULL) == 0 && p.has_config) return p.config[0];
  return CONFIG_U55_128;
}

static uint32_t product_id(unsigned product) {
  switch (product) {
    case MX_ETHOSU_PRODUCT_U65: return ID_U65;
    case MX_ETHOSU_PRODUCT_U85: return ID_U85;
    default: return ID_U55; /* a product the driver does not know: init refuses it, naming it */
  }
}

/* The register file plays the NPU the payload was compiled for; the driver is initialised for it once. The
 * simulator (mx_run_npu_sim.c) gets the same CONFIG word, so it runs the payload as that product would. */
static mx_ethosu *host_npu(uint32_t config) {
  if (npu_ready && config == npu_config) return &npu;
  unsigned product = MX_ETHOSU_CONFIG_PRODUCT(config);
  mx_ethosu_ram_init(&io, product_id(product), config);
  mx_ethosu_ram_set_hooks(&io, mx_run_npu_start, NULL, NULL);
  mx_ethosu_config cfg;
  mx_ethosu_config_default(&cfg, product);
  cfg.address_bits = 64; /* host pointers */
  int err = mx_ethosu_init(&npu, &io, &cfg);
  npu_ready = err == MX_ETHOSU_OK;
  npu_config = config;
  if (!npu_ready) {
    mx_run_npu_say("NPU: %s (payload compiled for CONFIG 0x%08x)", mx_ethosu_strerror(err), (unsigned)config);
    return NULL;
  }
  return &npu;
}

mx_ethosu *mx_ethosu_platform_begin(mx_ethosu_job *j, uint32_t *budget) {
  note[0] = '\0';
  if (j->base[2] == NULL) {
    j->base[2] = fast_scratch;
    j->size[2] = FAST_SCRATCH_BYTES;
  }
  job = *j;
  *budget = HOST_BUDGET;
  return host_npu(payload_config(j->cmd_data, j->cmd_bytes));
}

void mx_ethosu_platform_end(const mx_ethosu_job *j, int err) {
  if (err == MX_ETHOSU_E_OPT_PRODUCT) /* the two products, not just that they differ */
    mx_run_npu_say("NPU: payload compiled for an %s, but the NPU is an %s",
                   mx_ethosu_product_name(MX_ETHOSU_CONFIG_PRODUCT(npu.job_config)),
                   mx_ethosu_product_name(MX_ETHOSU_CONFIG_PRODUCT(npu.config)));
  if (err != MX_ETHOSU_OK && note[0] == '\0') mx_run_npu_say("NPU: %s", mx_ethosu_strerror(err));
  (void)j;
  memset(&job, 0, sizeof job);
}

static void free_scratch(void) { free(scratch); }

uint8_t *mx_ethosu_platform_scratch(uint32_t bytes) {
  size_t want = ((size_t)bytes + 15u) & ~(size_t)15u;
  if (want > MAX_SCRATCH_BYTES) return NULL; /* a corrupt scratch_size is refused, not allocated */
  if (want == 0) want = 16;
  if (scratch != NULL && scratch_bytes >= want) return scratch;
  if (scratch == NULL) atexit(free_scratch);
  free(scratch);
  scratch = aligned_alloc(16, want);
  scratch_bytes = scratch != NULL ? want : 0;
  if (scratch != NULL) memset(scratch, 0, want);
  return scratch;
}
