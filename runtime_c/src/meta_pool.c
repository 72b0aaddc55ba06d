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
  e = mx_fb_vec_table(fb, &chains, 0, &chain);
  if (e == MX_OK) e = mx_fb_vector(fb, &chain, CHAIN_INSTRUCTIONS, 4, instrs);
  return e;
}

static mx_error count_value(mx_fb *fb, const mx_fb_vec *values, uint32_t i, mx_meta_counts *c) {
  mx_fb_table ev, val;
  mx_fb_vec items;
  uint8_t tag;
  mx_error e = mx_fb_vec_table(fb, values, i, &ev);
  if (e == MX_OK) e = mx_fb_union(fb, &ev, EVALUE_VAL_TYPE, MX_KERNEL_TYPES_MAX, &tag, &val);
  if (e != MX_OK) return e;
  switch (tag) {
    case MX_TAG_TENSOR: c->tensors++; return MX_OK;
    case MX_TAG_INT_LIST:
      e = mx_fb_vector(fb, &val, SCALAR_VALUE, 8, &items);
      c->ints = mx_meta_add(c->ints, items.len);
      return e;
    case MX_TAG_DOUBLE_LIST:
      e = mx_fb_vector(fb, &val, SCALAR_VALUE, 8, &items);
      c->doubles = mx_meta_add(c->doubles, items.len);
      return e;
    case MX_TAG_TENSOR_LIST:
    case MX_TAG_OPT_TENSOR_LIST:
      e = mx_fb_vector(fb, &val, SCALAR_VALUE, 4, &items);
      c->tensor_refs = mx_meta_add(c->tensor_refs, items.len);
      return e;
    default: return MX_OK;
  }
}

static uint32_t max32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* What one call's frame holds (src/call_frame.c): each argument, and what it names, a list's tensors included. An
 * argument the loader will refuse (a bad index or value) counts nothing here. */
static void count_frame(mx_fb *fb, const mx_fb_vec *values, const mx_fb_vec *args, mx_meta_counts *c) {
  mx_meta_counts call = {0};
  for (uint32_t k = 0; k < args->len; k++) {
    const int32_t v = mx_fb_vec_i32(fb, args, k);
    if (v >= 0 && (uint32_t)v < values->len) (void)count_value(fb, values, (uint32_t)v, &call);
  }
  c->frame_args = max32(c->frame_args, args->len);
  c->frame_tensors = max32(c->frame_tensors, mx_meta_add(call.tensors, call.tensor_refs));
  c->frame_ints = max32(c->frame_ints, call.ints);
  c->frame_doubles = max32(c->frame_doubles, call.doubles);
  c->frame_refs = max32(c->frame_refs, call.tensor_refs);
}

static mx_error count_instruction(mx_fb *fb, const mx_fb_vec *values, const mx_fb_vec *instrs, uint32_t i,
                                  mx_meta_counts *c) {
  mx_fb_table ins, call;
  mx_fb_vec args;
  uint8_t tag;
  mx_error e = mx_fb_vec_table(fb, instrs, i, &ins);
  if (e == MX_OK) e = mx_fb_union(fb, &ins, INSTRUCTION_ARGS_TYPE, MX_INSTR_TYPES_MAX, &tag, &call);
  if (e != MX_OK || (tag != INSTR_KERNEL_CALL && tag != INSTR_DELEGATE_CALL)) return e;
  e = mx_fb_vector(fb, &call, KERNEL_CALL_ARGS, 4, &args);   /* DelegateCall.args has the same id */
  if (e != MX_OK) return e;
  c->args = mx_meta_add(c->args, args.len);
  count_frame(fb, values, &args, c);
  return MX_OK;
}

static mx_error count_arenas(mx_fb *fb, const mx_fb_table *plan, mx_meta_counts *c) {
  mx_fb_vec sizes;
  mx_error e = mx_fb_vector(fb, plan, PLAN_NON_CONST_BUFFER_SIZES, 8, &sizes);
  c->arenas = sizes.len;
  for (uint32_t id = 1; e == MX_OK && id < sizes.len; id++) {
    const int64_t size = mx_fb_vec_i64(fb, &sizes, id);
    if (size > 0 && (uint64_t)size > c->largest_arena) c->largest_arena = (uint64_t)size;
  }
  return e;
}

mx_error mx_count_meta(mx_fb *fb, const mx_fb_table *plan, mx_meta_counts *c) {
  mx_fb_vec values, instrs, ops, inputs, outputs;
  *c = (mx_meta_counts){0};
  mx_error e = mx_fb_vector(fb, plan, PLAN_VALUES, 4, &values);
  if (e == MX_OK) e = mx_fb_vector(fb, plan, PLAN_INPUTS, 4, &inputs);
  if (e == MX_OK) e = mx_fb_vector(fb, plan, PLAN_OUTPUTS, 4, &outputs);
  if (e == MX_OK) e = mx_fb_vector(fb, plan, PLAN_OPERATORS, 4, &ops);
  if (e == MX_OK) e = mx_plan_instructions(fb, plan, &instrs);
  if (e != MX_OK) return e;
  c->values = values.len;
  c->inputs = inputs.len;
  c->outputs = outputs.len;
  c->io = inputs.len + outputs.len;   /* each below 2^30: 4 bytes an entry */
  c->ops = ops.len;
  c->instrs = instrs.len;
  for (uint32_t i = 0; e == MX_OK && i < values.len; i++) e = count_value(fb, &values, i, c);
  for (uint32_t i = 0; e == MX_OK && i < instrs.len; i++) e = count_instruction(fb, &values, &instrs, i, c);
  if (e == MX_OK && mx_delegates != NULL) e = mx_delegates->count(fb, plan, c);
  if (e == MX_OK) e = count_arenas(fb, plan, c);
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

mx_error mx_meta_pool_bytes(const mx_program *p, mx_fb *fb, const mx_fb_table *plan, size_t *bytes) {
  mx_meta_counts c;
  mx_meta_layout l;
  (void)p;
  *bytes = 0;
  mx_error e = mx_count_meta(fb, plan, &c);
  if (e == MX_OK) e = mx_layout_meta(&c, &l);
  if (e == MX_OK) *bytes = (size_t)l.total;
  return e;
}
