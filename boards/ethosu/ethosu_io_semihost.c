/* The simulation build's register access: a register file whose start hands the job to the host over
 * semihosting (ethosu_io_semihost.h documents the channel and the wire format). */
#include "ethosu_io_semihost.h"

#include "ethosu_regfile.h"
#include "mx_platform.h"

#define JOB_HEADER_BYTES (4u * MX_ETHOSU_SEMIHOST_JOB_WORDS)
#define REPLY_HEADER_BYTES (4u * MX_ETHOSU_SEMIHOST_REPLY_WORDS)

/* Job header words (ethosu_io_semihost.h). */
enum {
  J_MAGIC,
  J_VERSION,
  J_HEADER_BYTES,
  J_TOTAL_BYTES,
  J_SEQUENCE,
  J_ID,
  J_CONFIG,
  J_QBASE,
  J_QBASE_HI,
  J_QSIZE,
  J_QCONFIG,
  J_REGIONCFG,
  J_BASEP,                                      /* 8 x (low, high) */
  J_SIZE = J_BASEP + 2 * MX_ETHOSU_SEMIHOST_REGIONS, /* 8 */
  J_IN_MASK = J_SIZE + MX_ETHOSU_SEMIHOST_REGIONS,
  J_OUT_MASK,
};
/* Reply header words. */
enum {
  R_MAGIC,
  R_VERSION,
  R_HEADER_BYTES,
  R_TOTAL_BYTES,
  R_SEQUENCE,
  R_RESULT,
  R_STATUS,
  R_OUT_MASK,
  R_CYCLES,
  R_CYCLES_HI
};

_Static_assert(J_OUT_MASK + 3 == MX_ETHOSU_SEMIHOST_JOB_WORDS, "job header layout");
_Static_assert(R_CYCLES_HI + 1 == MX_ETHOSU_SEMIHOST_REPLY_WORDS, "reply header layout");

static int in_range(uint32_t offset) { return mx_ethosu_regfile_in_range(MX_ETHOSU_SEMIHOST_REGS, offset); }

static uint32_t *reg(mx_ethosu_io *io, uint32_t offset) { return &io->regs[offset / 4u]; }

void mx_ethosu_semihost_init(mx_ethosu_io *io, uint32_t id, uint32_t config) {
  io->id = id;
  io->config = config;
  for (int n = 0; n < MX_ETHOSU_SEMIHOST_REGIONS; n++) io->size[n] = 0;
  io->read_only = 0;
  io->job = -1;
  io->reply = -1;
  io->sequence = 0;
  io->error = 0;
  io->closed = 0;
  io->refused = 0;
  io->transfers = 0;
  io->on_done = 0;
  io->ctx = 0;
  mx_ethosu_regfile_reset(io->regs, MX_ETHOSU_SEMIHOST_REGS, id, config, 0);
}

void mx_ethosu_semihost_on_done(mx_ethosu_io *io, void (*on_done)(void *ctx), void *ctx) {
  io->on_done = on_done;
  io->ctx = ctx;
}

int mx_ethosu_semihost_region(mx_ethosu_io *io, int n, uint32_t size, int read_only) {
  if (n < 0 || n >= MX_ETHOSU_SEMIHOST_REGIONS) return -1;
  io->size[n] = size;
  if (read_only)
    io->read_only |= 1u << n;
  else
    io->read_only &= ~(1u << n);
  return 0;
}

int mx_ethosu_semihost_error(const mx_ethosu_io *io) { return io->error; }

const char *mx_ethosu_semihost_strerror(int err) {
  switch (err) {
    case MX_ETHOSU_SEMIHOST_OK: return "ok";
    case MX_ETHOSU_SEMIHOST_E_NO_HOST:
      return "no host: cannot open " MX_ETHOSU_SEMIHOST_REPLY_PIPE " in the semihosting folder";
    case MX_ETHOSU_SEMIHOST_E_JOB_PIPE: return "cannot open " MX_ETHOSU_SEMIHOST_JOB_PIPE;
    case MX_ETHOSU_SEMIHOST_E_WRITE: return "the host stopped reading the job";
    case MX_ETHOSU_SEMIHOST_E_READ: return "the reply ended early: the host went away";
    case MX_ETHOSU_SEMIHOST_E_REPLY: return "the reply does not match its job";
    case MX_ETHOSU_SEMIHOST_E_REFUSED: return "the host could not run the job";
    case MX_ETHOSU_SEMIHOST_E_REGION: return "a declared region has no base pointer or passes 4 GiB";
    case MX_ETHOSU_SEMIHOST_E_CLOSED: return "the channel was closed by an earlier error";
    default: return "unknown seam error";
  }
}

/* Whole transfers: SYS_READ/SYS_WRITE return the bytes NOT transferred, and a pipe may move fewer at once. */
static int write_all(mx_ethosu_io *io, int handle, const void *data, uint32_t bytes) {
  const uint8_t *p = data;
  while (bytes > 0) {
    io->transfers++;
    int left = mx_semihost_write(handle, p, bytes);
    if (left < 0 || (uint32_t)left >= bytes) return -1;
    p += bytes - (uint32_t)left;
    bytes = (uint32_t)left;
  }
  return 0;
}

static int read_all(mx_ethosu_io *io, int handle, void *data, uint32_t bytes) {
  uint8_t *p = data;
  while (bytes > 0) {
    io->transfers++;
    int left = mx_semihost_read(handle, p, bytes);
    if (left < 0 || (uint32_t)left >= bytes) return -1;
    p += bytes - (uint32_t)left;
    bytes = (uint32_t)left;
  }
  return 0;
}

static void close_channel(mx_ethosu_io *io) {
  if (io->job >= 0) mx_semihost_close(io->job);
  if (io->reply >= 0) mx_semihost_close(io->reply);
  io->job = -1;
  io->reply = -1;
  io->closed = 1;
}

/* The reply pipe first: a missing file means no host, and the open returns once the host opens its end.
 * The job pipe after it, so that the firmware never creates a plain file where the host's FIFO should be. */
static int open_channel(mx_ethosu_io *io) {
  io->reply = mx_semihost_open(MX_ETHOSU_SEMIHOST_REPLY_PIPE, MX_SEMIHOST_MODE_RB);
  if (io->reply < 0) return MX_ETHOSU_SEMIHOST_E_NO_HOST;
  io->job = mx_semihost_open(MX_ETHOSU_SEMIHOST_JOB_PIPE, MX_SEMIHOST_MODE_WB);
  if (io->job < 0) return MX_ETHOSU_SEMIHOST_E_JOB_PIPE;
  return 0;
}

static uint8_t *region_data(const uint32_t *header, int n) { return (uint8_t *)(uintptr_t)header[J_BASEP + 2 * n]; }

/* Fills the job header from the registers; 0 or E_REGION. */
static int build_header(mx_ethosu_io *io, uint32_t *h) {
  uint32_t in_mask = 0, out_mask = 0, total = JOB_HEADER_BYTES;
  for (uint32_t i = 0; i < MX_ETHOSU_SEMIHOST_JOB_WORDS; i++) h[i] = 0;
  h[J_MAGIC] = MX_ETHOSU_SEMIHOST_JOB_MAGIC;
  h[J_VERSION] = MX_ETHOSU_SEMIHOST_VERSION;
  h[J_HEADER_BYTES] = JOB_HEADER_BYTES;
  h[J_SEQUENCE] = io->sequence;
  h[J_ID] = io->id;
  h[J_CONFIG] = io->config;
  h[J_QBASE] = *reg(io, MX_ETHOSU_QBASE);
  h[J_QBASE_HI] = *reg(io, MX_ETHOSU_QBASE_HI);
  h[J_QSIZE] = *reg(io, MX_ETHOSU_QSIZE);
  h[J_QCONFIG] = *reg(io, MX_ETHOSU_QCONFIG);
  h[J_REGIONCFG] = *reg(io, MX_ETHOSU_REGIONCFG);
  if (h[J_QBASE_HI] != 0 || (uint64_t)h[J_QBASE] + h[J_QSIZE] > 0x100000000ull) return MX_ETHOSU_SEMIHOST_E_REGION;
  total += h[J_QSIZE];
  for (int n = 0; n < MX_ETHOSU_SEMIHOST_REGIONS; n++) {
    uint32_t base = *reg(io, MX_ETHOSU_BASEP(n)), base_hi = *reg(io, MX_ETHOSU_BASEP_HI(n));
    h[J_BASEP + 2 * n] = base;
    h[J_BASEP + 2 * n + 1] = base_hi;
    h[J_SIZE + n] = io->size[n];
    if (io->size[n] == 0) continue;
    if (base == 0 || base_hi != 0 || (uint64_t)base + io->size[n] > 0x100000000ull) return MX_ETHOSU_SEMIHOST_E_REGION;
    in_mask |= 1u << n;
    if (!(io->read_only & (1u << n))) out_mask |= 1u << n;
    total += io->size[n];
  }
  h[J_IN_MASK] = in_mask;
  h[J_OUT_MASK] = out_mask;
  h[J_TOTAL_BYTES] = total;
  return 0;
}

static int send_job(mx_ethosu_io *io, const uint32_t *h) {
  if (write_all(io, io->job, h, JOB_HEADER_BYTES) != 0) return MX_ETHOSU_SEMIHOST_E_WRITE;
  if (write_all(io, io->job, (const void *)(uintptr_t)h[J_QBASE], h[J_QSIZE]) != 0) return MX_ETHOSU_SEMIHOST_E_WRITE;
  for (int n = 0; n < MX_ETHOSU_SEMIHOST_REGIONS; n++) {
    if (!(h[J_IN_MASK] & (1u << n))) continue;
    if (write_all(io, io->job, region_data(h, n), h[J_SIZE + n]) != 0) return MX_ETHOSU_SEMIHOST_E_WRITE;
  }
  return 0;
}

/* Reads the reply into the writable regions; on success *status is the NPU's final STATUS and *cycles the job's
 * NPU cycles as the executor counted them (0: it did not count). */
static int receive_reply(mx_ethosu_io *io, const uint32_t *h, uint32_t *status, uint64_t *cycles) {
  uint32_t r[MX_ETHOSU_SEMIHOST_REPLY_WORDS];
  if (read_all(io, io->reply, r, REPLY_HEADER_BYTES) != 0) return MX_ETHOSU_SEMIHOST_E_READ;
  if (r[R_MAGIC] != MX_ETHOSU_SEMIHOST_REPLY_MAGIC || r[R_VERSION] != MX_ETHOSU_SEMIHOST_VERSION ||
      r[R_HEADER_BYTES] != REPLY_HEADER_BYTES || r[R_SEQUENCE] != h[J_SEQUENCE])
    return MX_ETHOSU_SEMIHOST_E_REPLY;
  io->refused = r[R_RESULT];
  if (r[R_RESULT] != 0) {
    if (r[R_OUT_MASK] != 0 || r[R_TOTAL_BYTES] != REPLY_HEADER_BYTES) return MX_ETHOSU_SEMIHOST_E_REPLY;
    return MX_ETHOSU_SEMIHOST_E_REFUSED;
  }
  uint32_t total = REPLY_HEADER_BYTES;
  for (int n = 0; n < MX_ETHOSU_SEMIHOST_REGIONS; n++)
    if (h[J_OUT_MASK] & (1u << n)) total += h[J_SIZE + n];
  if (r[R_OUT_MASK] != h[J_OUT_MASK] || r[R_TOTAL_BYTES] != total) return MX_ETHOSU_SEMIHOST_E_REPLY;
  for (int n = 0; n < MX_ETHOSU_SEMIHOST_REGIONS; n++) {
    if (!(h[J_OUT_MASK] & (1u << n))) continue;
    if (read_all(io, io->reply, region_data(h, n), h[J_SIZE + n]) != 0) return MX_ETHOSU_SEMIHOST_E_READ;
  }
  *status = r[R_STATUS];
  *cycles = (uint64_t)r[R_CYCLES_HI] << 32 | r[R_CYCLES];
  return 0;
}

static int exchange(mx_ethosu_io *io, uint32_t *status, uint64_t *cycles) {
  uint32_t h[MX_ETHOSU_SEMIHOST_JOB_WORDS];
  io->sequence++;
  if (io->closed) return MX_ETHOSU_SEMIHOST_E_CLOSED;
  int err = build_header(io, h);
  if (err) return err;
  if (io->reply < 0) {
    err = open_channel(io);
    if (err) {
      close_channel(io);
      return err;
    }
  }
  err = send_job(io, h);
  if (!err) err = receive_reply(io, h, status, cycles);
  if (err && err != MX_ETHOSU_SEMIHOST_E_REFUSED) close_channel(io);
  return err;
}

/* CMD.start: the job runs on the host; STATUS then reads as the NPU leaves it, with the interrupt raised. */
static void start(mx_ethosu_io *io) {
  uint32_t *status = reg(io, MX_ETHOSU_STATUS);
  uint32_t final = 0;
  uint64_t cycles = 0;
  *status |= MX_ETHOSU_STATUS_RUNNING;
  io->error = exchange(io, &final, &cycles);
  if (io->error) {
    mx_platform_puts("mx: npu seam: job ");
    mx_platform_put_dec((int32_t)io->sequence);
    mx_platform_puts(": ");
    mx_platform_puts(mx_ethosu_semihost_strerror(io->error));
    if (io->error == MX_ETHOSU_SEMIHOST_E_REFUSED) {
      mx_platform_puts(" (result ");
      mx_platform_put_dec((int32_t)io->refused);
      mx_platform_puts(")");
    }
    mx_platform_puts("\n");
    final = 0; /* stopped before the end of the stream, no fault */
    cycles = 0;
  }
  /* The driver reads the PMU's cycle counter as from silicon: it counts only if the driver started it. */
  mx_ethosu_regfile_count_cycles(io->regs, MX_ETHOSU_SEMIHOST_REGS, cycles);
  *status = (final & ~(MX_ETHOSU_STATUS_RUNNING | MX_ETHOSU_STATUS_RESET_BUSY)) | MX_ETHOSU_STATUS_IRQ_RAISED;
  if (io->on_done) io->on_done(io->ctx);
}

uint32_t mx_ethosu_io_read(mx_ethosu_io *io, uint32_t offset) { return in_range(offset) ? *reg(io, offset) : 0; }

void mx_ethosu_io_write(mx_ethosu_io *io, uint32_t offset, uint32_t value) {
  if (!in_range(offset)) return;
  mx_ethosu_regfile_event event =
      mx_ethosu_regfile_write(io->regs, MX_ETHOSU_SEMIHOST_REGS, io->id, io->config, offset, value);
  if (event == MX_ETHOSU_REGFILE_START && !(*reg(io, MX_ETHOSU_STATUS) & MX_ETHOSU_STATUS_RUNNING)) start(io);
}
