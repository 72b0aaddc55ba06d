/* The host's register access: a register file in RAM (ethosu_io_ram.h). */
#include "ethosu_io_ram.h"

#include "ethosu_regfile.h"

static int in_range(uint32_t offset) { return mx_ethosu_regfile_in_range(MX_ETHOSU_REGISTER_BYTES, offset); }

static uint32_t *reg(mx_ethosu_io *io, uint32_t offset) { return &io->regs[offset / 4u]; }

void mx_ethosu_ram_init(mx_ethosu_io *io, uint32_t id, uint32_t config) {
  io->id = id;
  io->config = config;
  io->on_start = 0;
  io->on_reset = 0;
  io->ctx = 0;
  io->bad = 0;
  mx_ethosu_regfile_reset(io->regs, MX_ETHOSU_REGISTER_BYTES, id, config, 0);
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
  switch (mx_ethosu_regfile_write(io->regs, MX_ETHOSU_REGISTER_BYTES, io->id, io->config, offset, value)) {
    case MX_ETHOSU_REGFILE_RESET:
      if (io->on_reset) io->on_reset(io, io->ctx);
      return;
    case MX_ETHOSU_REGFILE_START:
      if (io->on_start) io->on_start(io, io->ctx);
      return;
    case MX_ETHOSU_REGFILE_WRITTEN: return;
  }
}

void mx_ethosu_ram_count_cycles(mx_ethosu_io *io, uint64_t cycles) {
  mx_ethosu_regfile_count_cycles(io->regs, MX_ETHOSU_REGISTER_BYTES, cycles);
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
