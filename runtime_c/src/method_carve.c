/* Carving a method's memory: the lasting regions from the metadata pool, the load-only ones from the largest
 * arena when it holds them (nothing is planned there yet while the method loads) or from the pool's end. */
#include <string.h>

#include "loader.h"

#define AT(block, region, type) ((type *)(void *)((block) + l->at[MX_META_##region]))

static size_t skew8(const void *p) { return (size_t)((8u - ((uintptr_t)p & 7u)) & 7u); }

/* The largest arena (the first of equals), as the config gives it, aligned to 8 and large enough for `bytes`. */
static mx_error load_block_in_arena(mx_load_ctx *ctx, uint64_t largest, uint64_t bytes, uint8_t **block) {
  const mx_method_config *cfg = ctx->cfg;
  for (uint32_t id = 1; id < ctx->buffer_sizes.len; id++) {
    if (mx_fb_vec_i64(&ctx->fb, &ctx->buffer_sizes, id) != (int64_t)largest) continue;
    if (id >= cfg->arena_count || cfg->arenas == NULL || cfg->arenas[id].ptr == NULL) return MX_ERR_ARENA_MISSING;
    const mx_span *a = &cfg->arenas[id];
    const size_t skew = skew8(a->ptr);
    if (a->size < skew || a->size - skew < bytes) return MX_ERR_ARENA_TOO_SMALL;
    *block = (uint8_t *)a->ptr + skew;
    return MX_OK;
  }
  return MX_ERR_BAD_INDEX;   /* unreachable: mx_count_meta found that arena */
}

static void carve_load(mx_load_ctx *ctx, const mx_meta_counts *c, const mx_meta_layout *l, uint8_t *block) {
  mx_method *m = ctx->m;
  m->values = AT(block, values, mx_value);
  m->value_count = (uint32_t)c->values;
  ctx->tensors = AT(block, tensors, mx_tensor);
  ctx->tensors_left = (uint32_t)c->tensors;
  ctx->tensors_base = ctx->tensors;
  ctx->lives = AT(block, lives, uint32_t);
  ctx->ints = AT(block, ints, int64_t);
  ctx->ints_left = (uint32_t)c->ints;
  ctx->doubles = AT(block, doubles, double);
  ctx->doubles_left = (uint32_t)c->doubles;
  ctx->tensor_refs = AT(block, tensor_refs, mx_tensor *);
  ctx->tensor_refs_left = (uint32_t)c->tensor_refs;
  m->load_args = AT(block, load_args, mx_value *);
  m->inputs = AT(block, inputs, const uint32_t);
  m->outputs = AT(block, outputs, const uint32_t);
  m->op_names = AT(block, op_names, const char *);
  m->op_overloads = AT(block, op_overloads, const char *);
  ctx->args = m->load_args;
  ctx->args_left = (uint32_t)c->args;
}

static void carve_lasting(mx_load_ctx *ctx, const mx_meta_counts *c, const mx_meta_layout *l, uint8_t *pool) {
  mx_method *m = ctx->m;
  m->instrs = AT(pool, instrs, mx_instr);
  m->instr_count = (uint32_t)c->instrs;
  m->arg_ids = AT(pool, arg_ids, uint16_t);
  m->ops = AT(pool, ops, const mx_kernel_entry *);
  m->op_count = (uint32_t)c->ops;
  m->input_count = (uint32_t)c->inputs;
  m->output_count = (uint32_t)c->outputs;
  m->io_values = AT(pool, io_values, mx_value);
  m->io_tensors = AT(pool, io_tensors, mx_tensor);
  m->arenas = AT(pool, arenas, mx_span);
  m->arena_count = (uint32_t)c->arenas;
  m->delegates = AT(pool, delegates, mx_delegate);
  ctx->delegate_count = (uint32_t)c->delegates;
  ctx->delegate_state = AT(pool, delegate_state, uint8_t);
  ctx->delegate_state_left = c->delegate_state;
  mx_frame *f = &m->frame;
  f->argv = AT(pool, frame_argv, mx_value *);
  f->values = AT(pool, frame_values, mx_value);
  f->tensors = AT(pool, frame_tensors, mx_tensor);
  f->ints = AT(pool, frame_ints, int64_t);
  f->doubles = AT(pool, frame_doubles, double);
  f->refs = AT(pool, frame_refs, mx_tensor *);
  f->cap_args = (uint32_t)c->frame_args;
  f->cap_tensors = (uint32_t)c->frame_tensors;
  f->cap_ints = (uint32_t)c->frame_ints;
  f->cap_doubles = (uint32_t)c->frame_doubles;
  f->cap_refs = (uint32_t)c->frame_refs;
}

mx_error mx_carve_method(mx_load_ctx *ctx, const mx_meta_counts *c) {
  mx_meta_layout l;
  mx_error e = mx_layout_meta(c, &l);
  if (e != MX_OK) return e;
  uint8_t *pool = (uint8_t *)ctx->cfg->meta_pool;
  const size_t size = ctx->cfg->meta_pool_size, skew = skew8(pool);
  if (l.total > 0 && (pool == NULL || size < skew || size - skew < l.total)) return MX_ERR_META_POOL_FULL;
  pool += skew;
  uint8_t *block = pool + l.lasting;
  if (l.load_in_arena) e = load_block_in_arena(ctx, c->largest_arena, l.load, &block);
  if (e != MX_OK) return e;
  if (l.lasting > 0) memset(pool, 0, (size_t)l.lasting);
  if (l.load > 0) memset(block, 0, (size_t)l.load);
  carve_lasting(ctx, c, &l, pool);
  carve_load(ctx, c, &l, block);
  return MX_OK;
}
