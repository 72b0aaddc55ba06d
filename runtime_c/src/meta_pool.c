/* Sizing the metadata pool: one counting walk over a plan, then a fixed layout from the counts. */
#include <stddef.h>

#include "delegate.h"
#include "schema_ids.h"

mx_error mx_plan_instructions(mx_fb *fb, const mx_fb_table *plan, mx_fb_vec *instrs) {
  mx_fb_vec chains;
  mx_fb_table chain;
  instrs->pos = 0;
  instrs->len = 0;
  mx_error e = mx_fb_vector(fb, plan, PLAN_CHAINS, 4, &chains);
  if (e != MX_OK || chains.len == 0) return e;
  if (chains.len > 1) return MX_ERR_UNSUPPORTED;   /* control flow across chains is not implemented */
  (void)mx_fb_vec_table(fb, &chains, 0, &chain);
  return mx_fb_vector(fb, &chain, CHAIN_INSTRUCTIONS, 4, instrs);
}

/* What mx_count_meta reads values with. */
typedef struct walk {
  const mx_program *p;
  mx_fb *fb;
  mx_fb_vec values, sizes;
} walk;

/* Value i's counts into c; checked as well when `check` (else only as far as counting reads it). */
static mx_error count_value(const walk *w, uint32_t i, mx_meta_counts *c, bool check) {
  /* each list's element size and what it counts, by tag from MX_TAG_INT_LIST on */
  static const uint8_t elem[] = {8, 8, 1, 4, 4};
  static const uint8_t counts[] = {offsetof(mx_meta_counts, ints), offsetof(mx_meta_counts, doubles), 0,
                                   offsetof(mx_meta_counts, tensor_refs), offsetof(mx_meta_counts, tensor_refs)};
  mx_fb *fb = w->fb;
  mx_fb_table val;
  mx_fb_vec items;
  uint8_t tag;
  const char *s;
  mx_error e = mx_fb_vec_union(fb, &w->values, i, MX_KERNEL_TYPES_MAX, &tag, &val);
  if (e != MX_OK) return e;
  if (tag >= MX_TAG_INT_LIST) {
    e = mx_fb_vector(fb, &val, SCALAR_VALUE, elem[tag - MX_TAG_INT_LIST], &items);
    uint32_t *n = (uint32_t *)(void *)((uint8_t *)c + counts[tag - MX_TAG_INT_LIST]);
    if (tag != MX_TAG_BOOL_LIST) *n = mx_meta_add(*n, items.len);
    return e;
  }
  if (tag == MX_TAG_TENSOR) c->tensors++;
  if (!check) return MX_OK;
  switch (tag) {
    case MX_TAG_INT:
    case MX_TAG_DOUBLE: (void)mx_fb_u64(fb, &val, SCALAR_VALUE); return fb->err;
    case MX_TAG_BOOL: (void)mx_fb_u8(fb, &val, SCALAR_VALUE); return fb->err;
    case MX_TAG_STRING: return mx_fb_string(fb, &val, SCALAR_VALUE, &s);
    case MX_TAG_TENSOR: return mx_check_tensor_table(w->p, fb, &w->sizes, &val);
    default: return MX_OK;
  }
}

static uint32_t max32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* What one call's frame holds (src/call_frame.c): each argument, and what it names, a list's tensors included. An
 * argument the loader will refuse (a bad index or value) counts nothing here, and its error is not kept (the
 * reader's error is MX_OK here: the count stops at the first). */
static void count_frame(const walk *w, const mx_fb_vec *args, mx_meta_counts *c) {
  mx_meta_counts call = {0};
  for (uint32_t k = 0; k < args->len; k++) {
    const int32_t v = mx_fb_vec_i32(w->fb, args, k);
    if (v >= 0 && (uint32_t)v < w->values.len) (void)count_value(w, (uint32_t)v, &call, false);
    w->fb->err = MX_OK;
  }
  c->frame_args = max32(c->frame_args, args->len);
  c->frame_tensors = max32(c->frame_tensors, mx_meta_add(call.tensors, call.tensor_refs));
  c->frame_ints = max32(c->frame_ints, call.ints);
  c->frame_doubles = max32(c->frame_doubles, call.doubles);
  c->frame_refs = max32(c->frame_refs, call.tensor_refs);
}

static mx_error count_instruction(const walk *w, const mx_fb_vec *instrs, uint32_t i, mx_meta_counts *c) {
  mx_fb *fb = w->fb;
  mx_fb_table call;
  mx_fb_vec args;
  uint8_t tag;
  mx_error e = mx_fb_vec_union(fb, instrs, i, MX_INSTR_TYPES_MAX, &tag, &call);
  if (e != MX_OK || (tag != INSTR_KERNEL_CALL && tag != INSTR_DELEGATE_CALL)) return e;
  e = mx_fb_vector(fb, &call, KERNEL_CALL_ARGS, 4, &args);   /* DelegateCall.args has the same id */
  if (e != MX_OK) return e;
  c->args = mx_meta_add(c->args, args.len);
  count_frame(w, &args, c);
  return MX_OK;
}

mx_error mx_count_meta(const mx_program *p, mx_fb *fb, const mx_fb_table *plan, mx_meta_counts *c, int32_t *bad_value) {
  walk w = {p, fb, {0, 0}, {0, 0}};
  mx_fb_vec instrs, ops, inputs, outputs;
  *c = (mx_meta_counts){0};
  (void)mx_fb_vector(fb, plan, PLAN_VALUES, 4, &w.values);
  (void)mx_fb_vector(fb, plan, PLAN_INPUTS, 4, &inputs);
  (void)mx_fb_vector(fb, plan, PLAN_OUTPUTS, 4, &outputs);
  (void)mx_fb_vector(fb, plan, PLAN_OPERATORS, 4, &ops);
  mx_error e = mx_plan_instructions(fb, plan, &instrs);   /* the reader's first error, or its own */
  if (e == MX_OK) e = mx_fb_vector(fb, plan, PLAN_NON_CONST_BUFFER_SIZES, 8, &w.sizes);
  if (e != MX_OK) return e;
  c->values = w.values.len;
  c->inputs = inputs.len;
  c->outputs = outputs.len;
  c->io = inputs.len + outputs.len;   /* each below 2^30: 4 bytes an entry */
  c->ops = ops.len;
  c->instrs = instrs.len;
  c->arenas = w.sizes.len;
  for (uint32_t i = 0; i < w.values.len; i++) {
    e = count_value(&w, i, c, true);
    if (e == MX_OK) continue;
    if (bad_value != NULL) *bad_value = (int32_t)i;
    return e;
  }
  for (uint32_t i = 0; e == MX_OK && i < instrs.len; i++) e = count_instruction(&w, &instrs, i, c);
  if (e == MX_OK && mx_delegates != NULL) e = mx_delegates->count(fb, plan, c);
  for (uint32_t id = 1; e == MX_OK && id < w.sizes.len; id++) {
    const int64_t size = mx_fb_vec_i64(fb, &w.sizes, id);
    if (size > 0 && (uint64_t)size > c->largest_arena) c->largest_arena = (uint64_t)size;
  }
  return e;
}

/* Each region's count (its place in mx_meta_counts) and element size: tables and one loop, which is far smaller
 * code than one unrolled step per region. */
const uint8_t mx_meta_count_at[MX_META_REGIONS] = {
#define X(region, count, elem_size) offsetof(mx_meta_counts, count),
#include "mx/meta_pool.def"
#include "mx/meta_load.def"
#undef X
};
static const uint8_t elem_sizes[MX_META_REGIONS] = {
#define X(region, count, elem_size) elem_size,
#include "mx/meta_pool.def"
#include "mx/meta_load.def"
#undef X
};

/* Offsets of the lasting regions from the pool's start and of the load-only ones from theirs; the pool holds the
 * latter too unless the largest arena does. */
mx_error mx_layout_meta(const mx_meta_counts *c, mx_meta_layout *l) {
  uint64_t cur = 0;
  l->lasting = 0;
  for (uint32_t r = 0; r < MX_META_REGIONS; r++) {
    uint32_t n = *(const uint32_t *)(const void *)((const uint8_t *)c + mx_meta_count_at[r]);
    if (n == UINT32_MAX) return MX_ERR_TOO_LARGE;   /* saturated (mx_meta_add); keeps the sums below from wrapping */
    if (r == MX_META_LOAD) {
      l->lasting = (uint32_t)cur;
      cur = 0;
    }
    l->at[r] = (uint32_t)cur;
    cur += MX_META_REGION_BYTES(n, elem_sizes[r]);   /* below 2^32 + 2^32 * 255 + 8 */
    if (cur > UINT32_MAX) return MX_ERR_TOO_LARGE;
  }
  l->load = (uint32_t)cur;
  l->load_in_arena = MX_META_LOAD_IN_ARENA(l->load, c->largest_arena);
  const uint64_t total = (uint64_t)l->lasting + (l->load_in_arena ? 0u : l->load);
  if (total > SIZE_MAX || total > UINT32_MAX) return MX_ERR_TOO_LARGE;
  l->total = (uint32_t)total;
  return MX_OK;
}

mx_error mx_meta_pool_bytes(const mx_program *p, mx_fb *fb, const mx_fb_table *plan, size_t *bytes,
                            int32_t *bad_value) {
  mx_meta_counts c;
  mx_meta_layout l;
  *bytes = 0;
  mx_error e = mx_count_meta(p, fb, plan, &c, bad_value);
  if (e == MX_OK) e = mx_layout_meta(&c, &l);
  if (e == MX_OK) *bytes = (size_t)l.total;
  return e;
}
