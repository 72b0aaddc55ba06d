#ifndef MX_LOADER_H
#define MX_LOADER_H
/* Internal to method loading: the pieces a method's metadata is carved into, and the loading steps. */
#include "program_internal.h"

/* How many of each thing a method holds; the metadata pool is laid out from these counts alone, so
 * mx_program_method_meta and mx_method_load cannot disagree on its size. */
typedef struct mx_meta_counts {
  uint64_t values, tensors, ints, doubles, tensor_refs, instrs, args, ops, inputs, outputs;
} mx_meta_counts;

/* Byte offsets of each region in the pool, and the total. */
typedef struct mx_meta_layout {
  uint64_t values, tensors, ints, doubles, tensor_refs, instrs, args, ops, op_names, op_overloads, inputs,
      outputs, total;
} mx_meta_layout;

typedef struct mx_load_ctx {
  const mx_program *p;
  mx_fb fb;
  mx_fb_table plan;
  mx_fb_vec values;            /* the plan's EValues */
  mx_fb_vec buffer_sizes;      /* non_const_buffer_sizes */
  const mx_method_config *cfg;
  mx_method *m;
  /* cursors into the pool regions while filling */
  mx_tensor *tensors;
  uint32_t tensors_left;
  int64_t *ints;
  uint32_t ints_left;
  double *doubles;
  uint32_t doubles_left;
  mx_tensor **tensor_refs;
  uint32_t tensor_refs_left;
  mx_value **args;
  uint32_t args_left;
} mx_load_ctx;

mx_error mx_count_meta(mx_fb *fb, const mx_fb_table *plan, mx_meta_counts *c);
mx_error mx_layout_meta(const mx_meta_counts *c, mx_meta_layout *l);

/* Instruction list of the plan's only chain (empty when the plan has no chain). */
mx_error mx_plan_instructions(mx_fb *fb, const mx_fb_table *plan, mx_fb_vec *instrs);

mx_error mx_load_tensor(mx_load_ctx *ctx, const mx_fb_table *t, mx_tensor *out);
/* Fills method->values; on error method->site.value names the value. */
mx_error mx_load_values(mx_load_ctx *ctx);

#endif
