/* Test firmware for the NPU seam (tests/test_npu_seam.py): the Ethos-U driver with ethosu_io_semihost.c runs a
 * real Vela payload, as a delegate would on silicon: init, the input bytes copied to scratch at their offset,
 * mx_ethosu_run with base[0] = weights, base[1] = scratch, then the output bytes copied out.
 *
 * npu_seam_payload.h (written by the test) holds the payload, the weights and the I/O offsets. The payload and
 * the weights are const (rodata: BRAM), the scratch sits in the SSE-300's internal SRAM: all NPU-reachable.
 * seam_cfg.bin (semihosting) holds 6 words: jobs to run, the scratch region's declared size (0: the payload's),
 * the weights region's (0: the payload's weights; else that many bytes of a DDR buffer, for timing), the fast
 * scratch region's (0: none; else that many bytes of an SRAM buffer), and 1 to wait for the interrupt (the
 * seam's on_done hook calls mx_ethosu_irq_handler, as the NPU's vector would) instead of polling, and the
 * number of base pointers mx_ethosu_run gets (0: 3; fewer leave a declared region without one). in.bin holds
 * the input bytes. Prints "seam: init <err>", "seam: job <k> <err> <text>" per job, writes out.bin after each
 * good job, then "seam: done ..." with the FNV-1a hashes of the scratch and fast scratch regions, and exits
 * with the number of failed jobs (init failing: 100).
 */
#include <stdint.h>
#include <string.h>

#include "ethosu_driver.h"
#include "ethosu_io_semihost.h"
#include "mx_platform.h"
#include "npu_seam_payload.h"

#define SCRATCH_CAP (64u * 1024u)
#define BIG_CAP (512u * 1024u)
#define FAST_CAP (16u * 1024u)
/* Corstone-300's Ethos-U55-128 as Arm's header resets ID and as Vela compiles CONFIG (U55, 128 MACs). */
#define U55_ID 0x10104201u
#define U55_128_CONFIG 0x00001807u

static uint8_t scratch[SCRATCH_CAP] __attribute__((section(".mx_arena.isram"), aligned(16)));
static uint8_t fast_scratch[FAST_CAP] __attribute__((section(".mx_arena.isram"), aligned(16)));
static uint8_t big_weights[BIG_CAP] __attribute__((section(".mx_arena.ddr"), aligned(16)));
static uint8_t input[SEAM_INPUT_BYTES];
static mx_ethosu_io io;
static mx_ethosu npu;

static int read_file(const char *name, void *buf, uint32_t bytes) {
  int h = mx_semihost_open(name, MX_SEMIHOST_MODE_RB);
  if (h < 0) return -1;
  int left = mx_semihost_read(h, buf, bytes);
  mx_semihost_close(h);
  return left == 0 ? 0 : -1;
}

static void write_file(const char *name, const void *buf, uint32_t bytes) {
  int h = mx_semihost_open(name, MX_SEMIHOST_MODE_WB);
  if (h < 0 || mx_semihost_write(h, buf, bytes) != 0) mx_platform_puts("seam: cannot write out.bin\n");
  if (h >= 0) mx_semihost_close(h);
}

static uint32_t fnv1a(const uint8_t *p, uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void npu_irq(void *ctx) { mx_ethosu_irq_handler(ctx); }

static void report(const char *what, int32_t k, int err) {
  mx_platform_puts("seam: ");
  mx_platform_puts(what);
  if (k >= 0) {
    mx_platform_puts(" ");
    mx_platform_put_dec(k);
  }
  mx_platform_puts(" ");
  mx_platform_put_dec(err);
  mx_platform_puts(" ");
  mx_platform_puts(mx_ethosu_strerror(err));
  mx_platform_puts("\n");
}

int main(void) {
  uint32_t cfg[6];
  if (read_file("seam_cfg.bin", cfg, sizeof cfg) != 0 || read_file("in.bin", input, sizeof input) != 0) {
    mx_platform_puts("seam: cannot read seam_cfg.bin or in.bin\n");
    return 101;
  }
  uint32_t jobs = cfg[0];
  uint32_t scratch_bytes = cfg[1] ? cfg[1] : SEAM_SCRATCH_BYTES;
  uint32_t weights_bytes = cfg[2] ? cfg[2] : (uint32_t)sizeof seam_weights;
  uint32_t fast_bytes = cfg[3];
  if (scratch_bytes > SCRATCH_CAP || weights_bytes > BIG_CAP || fast_bytes > FAST_CAP || cfg[5] > 3) {
    mx_platform_puts("seam: sizes past the buffers\n");
    return 102;
  }

  mx_ethosu_semihost_init(&io, U55_ID, U55_128_CONFIG);
  mx_ethosu_config config;
  mx_ethosu_config_default(&config, MX_ETHOSU_PRODUCT_U55);
  if (cfg[4]) {
    config.irq = true;
    mx_ethosu_semihost_on_done(&io, npu_irq, &npu);
  }
  int err = mx_ethosu_init(&npu, &io, &config);
  report("init", -1, err);
  if (err) return 100;
  mx_ethosu_semihost_region(&io, 0, weights_bytes, 1);
  mx_ethosu_semihost_region(&io, 1, scratch_bytes, 0);
  mx_ethosu_semihost_region(&io, 2, fast_bytes, 0);
  const uint8_t *weights = cfg[2] ? big_weights : seam_weights;
  const uint64_t base[3] = {(uintptr_t)weights, (uintptr_t)scratch, fast_bytes ? (uintptr_t)fast_scratch : 0u};

  int failed = 0;
  uint64_t t0 = mx_platform_ticks();
  for (uint32_t k = 1; k <= jobs; k++) {
    memcpy(scratch + SEAM_INPUT_OFFSET, input, sizeof input);
    err = mx_ethosu_run(&npu, seam_cmd, sizeof seam_cmd, base, cfg[5] ? (int)cfg[5] : 3, 1000000u);
    report("job", (int32_t)k, err);
    if (err) {
      failed++;
      continue;
    }
    write_file("out.bin", scratch + SEAM_OUTPUT_OFFSET, SEAM_OUTPUT_BYTES);
  }
  mx_platform_puts("seam: done ticks=");
  mx_platform_put_dec((int32_t)(mx_platform_ticks() - t0));
  mx_platform_puts(" seam_error=");
  mx_platform_put_dec(mx_ethosu_semihost_error(&io));
  mx_platform_puts(" transfers=");
  mx_platform_put_dec((int32_t)io.transfers);
  mx_platform_puts(" scratch=");
  mx_platform_put_hex(fnv1a(scratch, scratch_bytes));
  mx_platform_puts(" fast=");
  mx_platform_put_hex(fnv1a(fast_scratch, fast_bytes));
  mx_platform_puts("\n");
  return failed;
}
