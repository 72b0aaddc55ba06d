/* The host's register access: a register file in RAM (ethosu_io_ram.h). */
#include "ethosu_io_ram.h"

static int in_range(uint32_t offset) { return offset < MX_ETHOSU_REGISTER_BYTES && (offset & 3u) == 0; }

static uint32_t *reg(mx_ethosu_io *io, uint32_t offset) { return &io->regs[offset / 4u]; }

static void reset_file(mx_ethosu_io *io, uint32_t prot) {
  for (uint32_t i = 0; i < MX_ETHOSU_RAM_WORDS; i++) io->regs[i] = 0;
  *reg(io, MX_ETHOSU_ID) = io->id;
  *reg(io, MX_ETHOSU_CONFIG) = io->config;
  *reg(io, MX_ETHOSU_CMD) = MX_ETHOSU_CMD_RESET_VALUE;
  *reg(io, MX_ETHOSU_PROT) = prot & (MX_ETHOSU_PROT_PRIVILEGED | MX_ETHOSU_PROT_NON_SECURE);
}

void mx_ethosu_ram_init(mx_ethosu_io *io, uint32_t id, uint32_t config) {
  io->id = id;
  io->config = config;
  io->on_start = 0;
  io->on_reset = 0;
  io->ctx = 0;
  io->bad = 0;
  reset_file(io, 0);
  mx_ethosu_ram_clear_log(io);
}

void mx_ethosu_ram_set_hooks(mx_ethosu_io *io, mx_ethosu_ram_hook on_start, mx_ethosu_ram_hook on_reset, void *ctx) {
  io->on_start = on_start;
  io->on_reset = on_reset;
  io->ctx = ctx;
}

size_t mx_ethosu_ram_size(void) { return sizeof(mx_ethosu_io); }

uint32_t mx_ethosu_ram_peek(const mx_ethosu_io *io, uint32_t offset) {
  return in_range(offset) ? io->regs[offset / 4u] : 0;
}

void mx_ethosu_ram_poke(mx_ethosu_io *io, uint32_t offset, uint32_t value) {
  if (in_range(offset)) *reg(io, offset) = value;
}

static int resetting(mx_ethosu_io *io) { return (*reg(io, MX_ETHOSU_STATUS) & MX_ETHOSU_STATUS_RESET_BUSY) != 0; }

uint32_t mx_ethosu_io_read(mx_ethosu_io *io, uint32_t offset) {
  if (!in_range(offset)) {
    io->bad++;
    return 0;
  }
  io->reads[offset / 4u]++;
  if (offset != MX_ETHOSU_STATUS && resetting(io)) return 0;
  return *reg(io, offset);
}

void mx_ethosu_io_write(mx_ethosu_io *io, uint32_t offset, uint32_t value) {
  if (!in_range(offset)) {
    io->bad++;
    return;
  }
  io->log_offset[io->writes % MX_ETHOSU_RAM_LOG] = offset;
  io->log_value[io->writes % MX_ETHOSU_RAM_LOG] = value;
  io->writes++;
  if (resetting(io)) return;
  uint32_t *status = reg(io, MX_ETHOSU_STATUS);
  switch (offset) {
    case MX_ETHOSU_ID:
    case MX_ETHOSU_STATUS:
    case MX_ETHOSU_QREAD:
    case MX_ETHOSU_PROT:
    case MX_ETHOSU_CONFIG: return;
    case MX_ETHOSU_RESET:
      reset_file(io, value);
      if (io->on_reset) io->on_reset(io, io->ctx);
      return;
    case MX_ETHOSU_CMD:
      *reg(io, MX_ETHOSU_CMD) = value & (MX_ETHOSU_CMD_CLOCK_Q | MX_ETHOSU_CMD_POWER_Q);
      if (value & MX_ETHOSU_CMD_CLEAR_IRQ) *status &= ~MX_ETHOSU_STATUS_IRQ_RAISED;
      *status &= ~(value & MX_ETHOSU_CMD_CLEAR_IRQ_HISTORY);
      if ((value & MX_ETHOSU_CMD_START) && io->on_start) io->on_start(io, io->ctx);
      return;
    case MX_ETHOSU_QBASE:
    case MX_ETHOSU_QBASE_HI:
    case MX_ETHOSU_QSIZE:
      if (!(*status & MX_ETHOSU_STATUS_RUNNING)) *status &= ~MX_ETHOSU_STATUS_CMD_END_REACHED;
      *reg(io, offset) = value;
      return;
    default: *reg(io, offset) = value; return;
  }
}

uint32_t mx_ethosu_ram_reads(const mx_ethosu_io *io, uint32_t offset) {
  return in_range(offset) ? io->reads[offset / 4u] : 0;
}

uint32_t mx_ethosu_ram_writes(const mx_ethosu_io *io) { return io->writes; }

int mx_ethosu_ram_write_at(const mx_ethosu_io *io, uint32_t n, uint32_t *offset, uint32_t *value) {
  if (n >= io->writes || io->writes - n > MX_ETHOSU_RAM_LOG) return -1;
  *offset = io->log_offset[n % MX_ETHOSU_RAM_LOG];
  *value = io->log_value[n % MX_ETHOSU_RAM_LOG];
  return 0;
}

void mx_ethosu_ram_clear_log(mx_ethosu_io *io) {
  io->writes = 0;
  for (uint32_t i = 0; i < MX_ETHOSU_RAM_WORDS; i++) io->reads[i] = 0;
}

uint32_t mx_ethosu_ram_bad_accesses(const mx_ethosu_io *io) { return io->bad; }
