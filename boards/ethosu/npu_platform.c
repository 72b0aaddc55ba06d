/* The firmware's Ethos-U platform (mx_ethosu_platform_*, runtime_c/backends/ethosu/ethosu_backend.h): one ELF for
 * silicon, the FVP and QEMU.
 *
 * The first job initialises the driver, once, and picks the register access then, at run time: the NPU's ID
 * register at MX_NPU_BASE (the board file's npu_base) reads 0 where there is no NPU (QEMU's mps3-an547 maps an
 * unimplemented device there), and then every job goes to the host over the semihosting seam
 * (ethosu_io_semihost.c: the host runs it on its simulator, mcu_export/runners/npu_seam.py); any other ID is a
 * real NPU, driven through its registers (ethosu_io_mmio.c). Both files are linked: the project's CMakeLists.txt
 * compiles each under its own names (mx_ethosu_mmio_* / mx_ethosu_semihost_*, struct mx_ethosu_mmio_io /
 * mx_ethosu_semihost_io), and this file implements the driver's seam (ethosu_io.h) by forwarding to the one
 * chosen. The seam's register file reports MX_NPU_ID and MX_NPU_CONFIG: the NPU the board has.
 *
 * Before each job on the seam, the job's regions are declared: 0 the weights (read-only: the host does not send
 * them back), 1 the scratch, 2 the fast scratch when the job has one. Completion comes by the NPU's interrupt
 * (the board's npu_irq, npu_irq.c), waited for with WFE within MX_NPU_BUDGET_TICKS of mx_platform_ticks; on the
 * seam, whose start returns with the job done, the line is pended here as the NPU would raise it. No cache
 * maintenance: the startup leaves the Cortex-M55's D-cache off. The platform scratch, for delegates called
 * without a scratch argument (ExecuTorch's), is model/mx_model_memory.c's when the program needs one (the largest
 * such delegate's scratch_size, where the NPU reaches; it replaces the weak definition here, which gives none); a
 * larger request, or any without it, gets NULL: the program is refused at load. A failure prints one line
 * "mx: npu: <what>", as the seam's own errors do ("mx: npu seam: ..."), before the runtime's error line. After each
 * good job whose PMU cycle counter (the driver's mx_ethosu.cycles) is not 0, one line "mx: pmu instruction=<the
 * DelegateCall's index> cycles=<decimal>" (mcu_export/runners/firmware.py puts it in run.json's npu.measured);
 * 0 means no PMU (the seam, unless its executor counts), and then nothing is said.
 *
 * Needs: MX_NPU_BASE, MX_NPU_ID, MX_NPU_CONFIG, MX_NPU_IRQ (mcu_export/firmware/npu.py defines them from the
 * board file). */
#include "ethosu_backend.h"
#include "mx_platform.h"
#include "npu_irq.h"

/* The two register accesses under the names the project's CMakeLists.txt compiles them with. ethosu_io.h is
 * already included (above, with the seam's own names), so each header below gets its renamed typedef here. */
#define mx_ethosu_io mx_ethosu_mmio_io
typedef struct mx_ethosu_mmio_io mx_ethosu_mmio_io;
#include "ethosu_io_mmio.h"
#undef mx_ethosu_io
#define mx_ethosu_io mx_ethosu_semihost_io
typedef struct mx_ethosu_semihost_io mx_ethosu_semihost_io;
#include "ethosu_io_semihost.h"
#undef mx_ethosu_io

uint32_t mx_ethosu_mmio_read(mx_ethosu_mmio_io *io, uint32_t offset);
void mx_ethosu_mmio_write(mx_ethosu_mmio_io *io, uint32_t offset, uint32_t value);
uint32_t mx_ethosu_semihost_read(mx_ethosu_semihost_io *io, uint32_t offset);
void mx_ethosu_semihost_write(mx_ethosu_semihost_io *io, uint32_t offset, uint32_t value);

#ifndef MX_NPU_BUDGET_TICKS
#define MX_NPU_BUDGET_TICKS 0xFFFFFFFFu /* CPU clock ticks: ~27 s at 160 MHz, a hung NPU's limit */
#endif

/* The seam the driver holds: exactly one of the two is set once the driver is initialised. */
struct mx_ethosu_io {
  mx_ethosu_mmio_io *mmio;
  mx_ethosu_semihost_io *semihost;
};

uint32_t mx_ethosu_io_read(mx_ethosu_io *io, uint32_t offset) {
  return io->mmio != 0 ? mx_ethosu_mmio_read(io->mmio, offset) : mx_ethosu_semihost_read(io->semihost, offset);
}

void mx_ethosu_io_write(mx_ethosu_io *io, uint32_t offset, uint32_t value) {
  if (io->mmio != 0) {
    mx_ethosu_mmio_write(io->mmio, offset, value);
  } else {
    mx_ethosu_semihost_write(io->semihost, offset, value);
    /* The seam's start returns once the host has run the job: raise the NPU's line now, as the NPU would. */
    if (offset == MX_ETHOSU_CMD && (value & MX_ETHOSU_CMD_START)) mx_npu_irq_raise();
  }
}

static mx_ethosu_mmio_io mmio;
static mx_ethosu_semihost_io semihost;
static mx_ethosu_io io;
static mx_ethosu npu;
static int init_error = 1; /* 1: not tried yet; then mx_ethosu_init's result */

static uint64_t ticks(void) { return mx_platform_ticks(); }

/* Sleeps until an event: the NPU's interrupt (or SysTick's) ends it; an interrupt taken between the driver's
 * check and this WFE has set the event register, so the wake-up is not lost. */
static void wait_for_event(void) { __asm volatile("wfe" ::: "memory"); }

void mx_npu_irq(void) { mx_ethosu_irq_handler(&npu); }

__attribute__((weak)) bool mx_ethosu_platform_quiet(void) { return false; }

static void say(const char *what, int err) {
  if (mx_ethosu_platform_quiet()) return;
  mx_platform_puts("mx: npu: ");
  mx_platform_puts(what);
  mx_platform_puts(mx_ethosu_strerror(err));
  mx_platform_puts(" (");
  mx_platform_put_dec(err);
  mx_platform_puts(")\n");
}

/* The driver, on the NPU at MX_NPU_BASE or, where nothing answers there, on the host's over the seam. */
static int init(void) {
  mx_ethosu_io_mmio_init(&mmio, (uintptr_t)MX_NPU_BASE);
  if (mx_ethosu_mmio_read(&mmio, MX_ETHOSU_ID) != 0) {
    io.mmio = &mmio;
  } else {
    mx_ethosu_semihost_init(&semihost, MX_NPU_ID, MX_NPU_CONFIG);
    io.semihost = &semihost;
  }
  mx_ethosu_config cfg;
  mx_ethosu_config_default(&cfg, MX_ETHOSU_CONFIG_PRODUCT(mx_ethosu_io_read(&io, MX_ETHOSU_CONFIG)));
  cfg.ticks = ticks;
  cfg.irq = true;
  cfg.idle = wait_for_event;
  int err = mx_ethosu_init(&npu, &io, &cfg);
  if (err == MX_ETHOSU_OK) mx_npu_irq_enable();
  if (err != MX_ETHOSU_OK) say(io.mmio != 0 ? "init: " : "init (seam): ", err);
  return err;
}

mx_ethosu *mx_ethosu_platform_begin(mx_ethosu_job *job, uint32_t *budget) {
  if (init_error == 1) init_error = init();
  if (init_error != MX_ETHOSU_OK) return 0;
  if (io.semihost != 0) {
    (void)mx_ethosu_semihost_region(&semihost, 0, job->size[0], 1);
    for (int n = 1; n < MX_ETHOSU_JOB_REGIONS; n++) (void)mx_ethosu_semihost_region(&semihost, n, job->size[n], 0);
  }
  *budget = MX_NPU_BUDGET_TICKS;
  return &npu;
}

/* "mx: npu: job: payload compiled for an Ethos-U85, but the NPU is an Ethos-U55": the two products, which the
 * driver's error alone does not name. */
static void say_products(void) {
  if (mx_ethosu_platform_quiet()) return;
  mx_platform_puts("mx: npu: job: payload compiled for an ");
  mx_platform_puts(mx_ethosu_product_name(MX_ETHOSU_CONFIG_PRODUCT(npu.job_config)));
  mx_platform_puts(", but the NPU is an ");
  mx_platform_puts(mx_ethosu_product_name(MX_ETHOSU_CONFIG_PRODUCT(npu.config)));
  mx_platform_puts("\n");
}

/* A 48-bit count in decimal (mx_platform_put_dec stops at 31 bits); the runner parses the line. */
static void put_u64(uint64_t v) {
  char out[21];
  int at = 20;
  out[at] = '\0';
  do {
    out[--at] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v != 0);
  mx_platform_puts(&out[at]);
}

void mx_ethosu_platform_end(const mx_ethosu_job *job, int err) {
  if (err == MX_ETHOSU_E_OPT_PRODUCT) say_products();
  if (err != MX_ETHOSU_OK && init_error == MX_ETHOSU_OK) say("job: ", err);
  /* The PMU's count of a good job; 0 means no PMU answered (the seam with an executor that does not count),
   * and then nothing is said rather than 0 cycles. */
  if (err == MX_ETHOSU_OK && npu.cycles != 0 && !mx_ethosu_platform_quiet()) {
    mx_platform_puts("mx: pmu instruction=");
    mx_platform_put_dec((int32_t)job->instruction);
    mx_platform_puts(" cycles=");
    put_u64(npu.cycles);
    mx_platform_puts("\n");
  }
}

/* None to give; a project whose program needs one defines its own in model/mx_model_memory.c. */
__attribute__((weak)) uint8_t *mx_ethosu_platform_scratch(uint32_t bytes) {
  (void)bytes;
  return 0;
}
