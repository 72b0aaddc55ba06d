/* A call's arguments, read from the program just before the call: the loader checked every one of them, and the
 * program does not change, so this reads what was checked (the checks run again, cheaply, and cannot fail). RAM
 * holds one call's worth, the largest call's (mx/meta_pool.def: frame_*), instead of every value of the method. */
#include "loader.h"
#include "schema_ids.h"

void mx_frame_open(mx_method *m, mx_frame_reader *r) {
  *r = (mx_frame_reader){0};
  r->cfg.arenas = m->arenas;
  r->cfg.arena_count = m->arena_count;
  r->ctx.p = m->program;
  r->ctx.cfg = &r->cfg;
  r->ctx.m = m;
  mx_prog_reader(m->program, &r->ctx.fb);
  r->ctx.values = (mx_fb_vec){m->frame.values_pos, m->frame.values_len};
  r->ctx.buffer_sizes = (mx_fb_vec){m->frame.sizes_pos, m->frame.sizes_len};
}

/* IntList items are indices of Int values: read from the program as the loader resolved them. */
static mx_error int_list(mx_load_ctx *ctx, const mx_fb_table *val, mx_value *out) {
  mx_fb_vec items;
  mx_error e = mx_fb_vector(&ctx->fb, val, SCALAR_VALUE, 8, &items);
  if (e == MX_OK && items.len > ctx->ints_left) e = MX_ERR_META_POOL_FULL;
  for (uint32_t k = 0; e == MX_OK && k < items.len; k++) {
    const int64_t idx = mx_fb_vec_i64(&ctx->fb, &items, k);
    mx_fb_table item;
    uint8_t tag;
    e = idx >= 0 && idx < (int64_t)ctx->values.len ? mx_open_value(ctx, (uint32_t)idx, &tag, &item) : MX_ERR_BAD_INDEX;
    if (e == MX_OK && tag != MX_TAG_INT) e = MX_ERR_BAD_VALUE_TYPE;
    if (e == MX_OK) e = mx_fb_i64(&ctx->fb, &item, SCALAR_VALUE, 0, &ctx->ints[k]);
  }
  if (e != MX_OK) return e;
  out->u.ints.items = ctx->ints;
  out->u.ints.len = items.len;
  ctx->ints += items.len;
  ctx->ints_left -= items.len;
  return MX_OK;
}

/* A list's tensors, each read into a tensor of the frame; NULL for an optional list's None (the loader allowed a
 * None only there). */
static mx_error tensor_list(mx_load_ctx *ctx, const mx_fb_table *val, mx_value *out) {
  mx_fb_vec items;
  mx_error e = mx_fb_vector(&ctx->fb, val, SCALAR_VALUE, 4, &items);
  if (e == MX_OK && items.len > ctx->tensor_refs_left) e = MX_ERR_META_POOL_FULL;
  for (uint32_t k = 0; e == MX_OK && k < items.len; k++) {
    const int32_t idx = mx_fb_vec_i32(&ctx->fb, &items, k);
    mx_fb_table item;
    uint8_t tag = MX_TAG_NONE;
    mx_value v = {0};
    e = idx >= 0 && (uint32_t)idx < ctx->values.len ? mx_open_value(ctx, (uint32_t)idx, &tag, &item) : MX_OK;
    if (e == MX_OK && idx >= 0 && tag == MX_TAG_TENSOR) e = mx_load_plain(ctx, tag, &item, &v);
    ctx->tensor_refs[k] = v.u.t;   /* NULL: None, as the loader accepted it */
  }
  if (e != MX_OK) return e;
  out->u.tensors.items = ctx->tensor_refs;
  out->u.tensors.len = items.len;
  ctx->tensor_refs += items.len;
  ctx->tensor_refs_left -= items.len;
  return MX_OK;
}

static mx_error one_value(mx_load_ctx *ctx, uint32_t id, mx_value *out) {
  mx_fb_table val;
  uint8_t tag;
  *out = (mx_value){0};
  mx_error e = mx_open_value(ctx, id, &tag, &val);
  if (e != MX_OK) return e;
  out->tag = tag;
  if (tag == MX_TAG_INT_LIST) return int_list(ctx, &val, out);
  if (tag == MX_TAG_TENSOR_LIST || tag == MX_TAG_OPT_TENSOR_LIST) {
    return tensor_list(ctx, &val, out);
  }
  return mx_load_plain(ctx, tag, &val, out);
}

mx_error mx_frame_build(mx_frame_reader *r, const mx_instr *ins, mx_value ***argv) {
  mx_load_ctx *ctx = &r->ctx;
  const mx_method *m = ctx->m;
  const mx_frame *f = &m->frame;
  if (ins->nargs > f->cap_args) return MX_ERR_META_POOL_FULL;
  ctx->tensors = f->tensors;
  ctx->tensors_left = f->cap_tensors;
  ctx->ints = f->ints;
  ctx->ints_left = f->cap_ints;
  ctx->doubles = f->doubles;
  ctx->doubles_left = f->cap_doubles;
  ctx->tensor_refs = f->refs;
  ctx->tensor_refs_left = f->cap_refs;
  const uint16_t *ids = &m->arg_ids[ins->first_arg];
  for (uint32_t k = 0; k < ins->nargs; k++) {
    uint32_t same = 0;
    while (same < k && ids[same] != ids[k]) same++;
    if (same < k) {   /* one value named twice (an out and the return repeating it) stays one value */
      f->argv[k] = f->argv[same];
      continue;
    }
    mx_error e = one_value(ctx, ids[k], &f->values[k]);
    if (e != MX_OK) return e;
    f->argv[k] = &f->values[k];
  }
  *argv = f->argv;
  return MX_OK;
}
