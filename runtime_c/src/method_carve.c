/* Carving a method's memory: the lasting regions from the metadata pool, the load-only ones from the largest
 * arena when it holds them (nothing is planned there yet while the method loads) or from the pool's end. */
#include <stddef.h>
#include <string.h>

#include "loader.h"

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

/* Where each region's start and count go: a field of the method or of the load context, as its offset in 4-byte
 * words with bit 7 set for the context (0: nowhere). A table and one loop: far smaller than a statement each. */
#define IN_M(field) (uint8_t)(offsetof(mx_method, field) / 4u)
#define IN_CTX(field) (uint8_t)(0x80u | offsetof(mx_load_ctx, field) / 4u)
_Static_assert(sizeof(mx_method) / 4u < 0x80u && sizeof(mx_load_ctx) / 4u < 0x80u, "word offsets fit 7 bits");
static const uint8_t carve_to[MX_META_REGIONS][2] = {
    [MX_META_instrs] = {IN_M(instrs), IN_M(instr_count)},
    [MX_META_arg_ids] = {IN_M(arg_ids), 0},
    [MX_META_ops] = {IN_M(ops), IN_M(op_count)},
    [MX_META_io_values] = {IN_M(io_values), 0},
    [MX_META_io_tensors] = {IN_M(io_tensors), 0},
    [MX_META_arenas] = {IN_M(arenas), IN_M(arena_count)},
    [MX_META_delegates] = {IN_M(delegates), IN_CTX(delegate_count)},
    [MX_META_delegate_state] = {IN_CTX(delegate_state), IN_CTX(delegate_state_left)},
    [MX_META_frame_argv] = {IN_M(frame.argv), IN_M(frame.cap_args)},
    [MX_META_frame_values] = {IN_M(frame.values), 0},
    [MX_META_frame_tensors] = {IN_M(frame.tensors), IN_M(frame.cap_tensors)},
    [MX_META_frame_ints] = {IN_M(frame.ints), IN_M(frame.cap_ints)},
    [MX_META_frame_doubles] = {IN_M(frame.doubles), IN_M(frame.cap_doubles)},
    [MX_META_frame_refs] = {IN_M(frame.refs), IN_M(frame.cap_refs)},
    [MX_META_values] = {IN_M(values), IN_M(value_count)},
    [MX_META_tensors] = {IN_CTX(bld.cur[MX_BUILD_TENSORS]), IN_CTX(bld.left[MX_BUILD_TENSORS])},
    [MX_META_lives] = {IN_CTX(lives), IN_CTX(tensor_count)},
    [MX_META_ints] = {IN_CTX(bld.cur[MX_BUILD_INTS]), IN_CTX(bld.left[MX_BUILD_INTS])},
    [MX_META_doubles] = {IN_CTX(bld.cur[MX_BUILD_DOUBLES]), IN_CTX(bld.left[MX_BUILD_DOUBLES])},
    [MX_META_tensor_refs] = {IN_CTX(bld.cur[MX_BUILD_REFS]), IN_CTX(bld.left[MX_BUILD_REFS])},
    [MX_META_load_args] = {IN_M(load_args), IN_CTX(args_left)},
    [MX_META_inputs] = {IN_M(inputs), IN_M(input_count)},
    [MX_META_outputs] = {IN_M(outputs), IN_M(output_count)},
    [MX_META_op_names] = {IN_M(op_names), 0},
    [MX_META_op_overloads] = {IN_M(op_overloads), 0},
};

static void put(mx_load_ctx *ctx, uint8_t slot, const void *src, size_t size) {
  uint8_t *base = (slot & 0x80u) != 0 ? (uint8_t *)ctx : (uint8_t *)ctx->m;
  if (slot != 0) __builtin_memcpy(base + 4u * (slot & 0x7Fu), src, size);   /* a store; memcpy: any field type */
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
  for (uint32_t r = 0; r < MX_META_REGIONS; r++) {
    uint8_t *start = (r < MX_META_LOAD ? pool : block) + l.at[r];
    put(ctx, carve_to[r][0], &start, sizeof start);
    put(ctx, carve_to[r][1], (const uint8_t *)c + mx_meta_count_at[r], sizeof(uint32_t));
  }
  mx_method *m = ctx->m;
  ctx->tensors_base = (mx_tensor *)(void *)ctx->bld.cur[MX_BUILD_TENSORS];
  ctx->args = m->load_args;
  /* the arenas as the config gives them, before any tensor is placed in them */
  const mx_method_config *cfg = ctx->cfg;
  for (uint32_t id = 0; cfg->arenas != NULL && id < m->arena_count && id < cfg->arena_count; id++) {
    m->arenas[id] = cfg->arenas[id];
  }
  return MX_OK;
}
