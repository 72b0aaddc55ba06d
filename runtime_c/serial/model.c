/* The active model: the slot headers that say which slot holds it, and loading its program into the work
 * area (metadata pool, arenas, then the per-instruction profile if room is left).
 *
 * Slot header (MX_SERIAL_SLOT_HEADER bytes before the image; little-endian u32s):
 *   magic "MXS1", image size, image CRC-32, generation, CRC-32 of the previous 16 bytes.
 * LOAD_END writes it last, after the image checked and loaded, so a slot whose transfer was cut (or whose
 * power was) has no valid header; of two valid slots the higher generation is the active one. */
#include <string.h>

#include "serial_internal.h"

#define ALIGN16(n) (((n) + 15u) & ~(uint32_t)15u)

const uint8_t *mx_slot_image(const mx_serial *s, uint32_t slot) {
  return s->cfg.store->map(s->cfg.store->ctx, slot) + MX_SERIAL_SLOT_HEADER;
}

/* 0 when the header is not valid. */
static uint32_t header_field(const mx_serial *s, uint32_t slot, uint32_t field) {
  /* the slot starts 16-byte aligned and the words are little-endian, as load.c wrote them */
  const uint32_t *h = (const uint32_t *)(const void *)s->cfg.store->map(s->cfg.store->ctx, slot);
  if (h[0] != MX_SERIAL_SLOT_MAGIC || mx_crc32(0, (const uint8_t *)h, 16) != h[4]) return 0;
  if (h[1] > s->cfg.store->slot_bytes - MX_SERIAL_SLOT_HEADER) return 0;
  return h[field];
}

uint32_t mx_slot_generation(const mx_serial *s, uint32_t slot) { return header_field(s, slot, 3); }

uint32_t mx_model_open(mx_serial *s, const uint8_t *image, uint32_t size) {
  mx_method_meta meta;
  mx_span arenas[MX_SERIAL_MAX_ARENAS];
  s->active = -1;
  s->profile = NULL;
  /* a program that fails before its method loads names no instruction */
  s->method.site.instruction = -1;
  s->method.site.op_name = NULL;
  s->method.site.op_overload = NULL;
  uint32_t e = mx_program_init(&s->program, image, size);
  if (e == MX_OK) e = mx_program_method_meta(&s->program, "forward", &meta);
  if (e == MX_OK && meta.arena_count > MX_SERIAL_MAX_ARENAS) e = MX_ERR_TOO_LARGE;
  if (e != MX_OK) return e;
  /* work area: pool, then each arena, 16-byte aligned (the planner's alignment) */
  if (meta.meta_pool_bytes > s->cfg.work_bytes) return MX_SERIAL_WORK_TOO_SMALL;
  uint32_t used = ALIGN16((uint32_t)meta.meta_pool_bytes);
  if (used > s->cfg.work_bytes) used = s->cfg.work_bytes;
  /* arenas[0] is reserved and never read; every other id is set below */
  for (uint32_t id = 1; id < meta.arena_count; id++) {
    uint64_t bytes;
    e = mx_program_arena_size(&s->program, &meta, id, &bytes);
    if (e != MX_OK) return e;
    if (bytes > (uint64_t)(s->cfg.work_bytes - used)) return MX_SERIAL_WORK_TOO_SMALL;
    arenas[id].ptr = s->cfg.work + used;
    arenas[id].size = (size_t)bytes;
    used = ALIGN16(used + (uint32_t)bytes);
    if (used > s->cfg.work_bytes) used = s->cfg.work_bytes;
  }
  const mx_method_config config = {
      .meta_pool = s->cfg.work,
      .meta_pool_size = meta.meta_pool_bytes,
      .arenas = arenas,
      .arena_count = meta.arena_count,
      .skip_kernels = false,
      .max_cost = s->cfg.max_cost,
      .cost = mx_call_cost,
  };
  e = mx_method_load(&s->program, "forward", &config, &s->method);
  if (e != MX_OK) return e;
  /* the profile is a bonus: a model that fills the work area still runs, unprofiled */
  if ((uint64_t)s->method.instr_count * 4u <= s->cfg.work_bytes - used) {
    s->profile = (uint32_t *)(s->cfg.work + used);
    /* zero until the first invoke; afterwards what did not run (fused away, delegates) stays 0 */
    memset(s->profile, 0, s->method.instr_count * 4u);
  }
  s->invoke_ticks = 0;
  return MX_OK;
}

/* Validates slot's header and image CRC and opens it. */
static uint32_t open_slot(mx_serial *s, uint32_t slot) {
  const uint32_t size = header_field(s, slot, 1);
  if (size == 0) return MX_SERIAL_NO_MODEL;
  const uint8_t *image = mx_slot_image(s, slot);
  if (mx_crc32(0, image, size) != header_field(s, slot, 2)) return MX_SERIAL_IMAGE_CRC;
  return mx_model_open(s, image, size);
}

void mx_serial_init(mx_serial *s, const mx_serial_config *cfg) {
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  mx_serial_boot(s);
}

void mx_serial_boot(mx_serial *s) {
  s->loading = 0;
  /* newest first; a slot that no longer checks or loads (a firmware without its operators) falls back */
  const uint32_t first = mx_slot_generation(s, 1) > mx_slot_generation(s, 0) ? 1u : 0u;
  for (uint32_t k = 0; k < 2; k++) {
    if (open_slot(s, first ^ k) == MX_OK) {
      s->active = (int8_t)(first ^ k);
      return;
    }
  }
  s->active = -1;
}

/* Per-op ticks in 32 bits: modular subtraction is exact for any op shorter than 2^32 ticks. */
void mx_serial_op_begin(mx_serial *s, uint32_t instruction) {
  (void)instruction;
  s->op_start = (uint32_t)s->cfg.io->ticks(s->cfg.io->ctx);
}

void mx_serial_op_end(mx_serial *s, uint32_t instruction) {
  const uint32_t dt = (uint32_t)s->cfg.io->ticks(s->cfg.io->ctx) - s->op_start;
  if (s->profile != NULL && instruction < s->method.instr_count) s->profile[instruction] = dt;
}
