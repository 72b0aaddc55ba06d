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
      c->ints += items.len;
      return e;
    case MX_TAG_DOUBLE_LIST:
      e = mx_fb_vector(fb, &val, SCALAR_VALUE, 8, &items);
      c->doubles += items.len;
      return e;
    case MX_TAG_TENSOR_LIST:
    case MX_TAG_OPT_TENSOR_LIST:
      e = mx_fb_vector(fb, &val, SCALAR_VALUE, 4, &items);
      c->tensor_refs += items.len;
      return e;
    default: return MX_OK;
  }
}

static mx_error count_instruction(mx_fb *fb, const mx_fb_vec *instrs, uint32_t i, mx_meta_counts *c) {
  mx_fb_table ins, call;
  mx_fb_vec args;
  uint8_t tag;
  mx_error e = mx_fb_vec_table(fb, instrs, i, &ins);
  if (e == MX_OK) e = mx_fb_union(fb, &ins, INSTRUCTION_ARGS_TYPE, MX_INSTR_TYPES_MAX, &tag, &call);
  if (e != MX_OK || (tag != INSTR_KERNEL_CALL && tag != INSTR_DELEGATE_CALL)) return e;
  e = mx_fb_vector(fb, &call, KERNEL_CALL_ARGS, 4, &args);   /* DelegateCall.args has the same id */
  c->args += args.len;
  return e;
}

/* The plan check's scratch comes from the pool only when no declared arena holds it (mx/meta_pool.def). */
static mx_error count_lives(mx_fb *fb, const mx_fb_table *plan, mx_meta_counts *c) {
  mx_fb_vec sizes;
  mx_error e = mx_fb_vector(fb, plan, PLAN_NON_CONST_BUFFER_SIZES, 8, &sizes);
  c->lives = c->tensors;
  for (uint32_t id = 1; e == MX_OK && c->lives > 0 && id < sizes.len; id++) {
    if (mx_fb_vec_i64(fb, &sizes, id) >= (int64_t)MX_LIVES_ARENA_BYTES(c->tensors)) c->lives = 0;
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
  c->ops = ops.len;
  c->instrs = instrs.len;
  for (uint32_t i = 0; e == MX_OK && i < values.len; i++) e = count_value(fb, &values, i, c);
  for (uint32_t i = 0; e == MX_OK && i < instrs.len; i++) e = count_instruction(fb, &instrs, i, c);
  if (e == MX_OK && mx_delegates != NULL) e = mx_delegates->count(fb, plan, c);
  if (e == MX_OK) e = count_lives(fb, plan, c);
  return e;
}

/* Each region's count (its place in mx_meta_counts) and element size: a table and one loop, which is
 * far smaller code than one unrolled step per region. */
static const struct {
  uint8_t count_at;
  uint8_t elem_size;
} regions[MX_META_REGIONS] = {
#define X(region, count, elem_size) {offsetof(mx_meta_counts, count), elem_size},
#include "mx/meta_pool.def"
#undef X
};

mx_error mx_layout_meta(const mx_meta_counts *c, mx_meta_layout *l) {
  uint64_t cur = 0;
  for (uint32_t r = 0; r < MX_META_REGIONS; r++) {
    uint64_t n = *(const uint64_t *)(const void *)((const uint8_t *)c + regions[r].count_at);
    if (n > UINT32_MAX) return MX_ERR_TOO_LARGE;   /* keeps the sum below from wrapping */
    l->at[r] = cur;
    cur += MX_META_REGION_BYTES(n, regions[r].elem_size);
  }
  l->total = cur;
  if (l->total > SIZE_MAX || l->total > UINT32_MAX) return MX_ERR_TOO_LARGE;
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
