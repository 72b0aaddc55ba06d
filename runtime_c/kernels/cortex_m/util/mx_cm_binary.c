#include "mx_cm_binary.h"

#include "mx_cm_args.h"

static mx_error check_i8(const mx_tensor *t) { return t->dtype == MX_DTYPE_I8 ? MX_OK : MX_ERR_BAD_DTYPE; }

/* Per dim of out (logical index), how many elements t advances per step along it: 0 where t has no such
 * dim or repeats a size-1 one. False when t does not broadcast to out. */
static bool operand_strides(const mx_tensor *t, const mx_tensor *out, uint32_t strides[MX_MAX_DIM]) {
  if (t->dim > out->dim) {
    return false;
  }
  uint32_t lead = out->dim - t->dim;
  uint32_t own[MX_MAX_DIM];
  uint32_t step = 1;
  for (uint32_t k = t->dim; k-- > 0;) { /* innermost memory dim first */
    uint32_t d = t->dim_order[k];
    own[d] = step;
    step *= (uint32_t)t->sizes[d];
  }
  for (uint32_t d = 0; d < out->dim; ++d) {
    strides[d] = 0;
    if (d < lead) {
      continue;
    }
    int32_t size = t->sizes[d - lead];
    if (size != out->sizes[d] && size != 1) {
      return false;
    }
    strides[d] = (size == 1) ? 0 : own[d - lead];
  }
  return true;
}

mx_arg_error mx_cm_binary_check(mx_value *const *args, const uint8_t operands[3]) {
  const mx_tensor *t[3];
  for (uint32_t i = 0; i < 3; ++i) {
    t[i] = mx_arg_tensor(args, operands[i]);
    MX_CHECK(operands[i], check_i8(t[i]));
  }
  mx_cm_binary plan;
  MX_CHECK(operands[2], mx_cm_binary_plan(t[0], t[1], t[2], &plan));
  return MX_OK;
}

mx_error mx_cm_binary_plan(const mx_tensor *a, const mx_tensor *b, const mx_tensor *out, mx_cm_binary *plan) {
  uint32_t sa[MX_MAX_DIM], sb[MX_MAX_DIM];
  if (!operand_strides(a, out, sa) || !operand_strides(b, out, sb)) {
    return MX_ERR_BAD_SHAPE;
  }
  /* The run: innermost memory dims of out along which both operands are dense like out (size-1 dims
   * never break it). */
  uint32_t k = out->dim, run = 1;
  while (k > 0) {
    uint32_t d = out->dim_order[k - 1];
    uint32_t size = (uint32_t)out->sizes[d];
    if (size != 1 && (sa[d] != run || sb[d] != run)) {
      break;
    }
    run *= size;
    --k;
  }
  *plan = (mx_cm_binary){0};
  plan->row_len = run;
  plan->rows = run > 0 ? out->numel / run : 0;
  for (uint32_t i = 0; i < k; ++i) {
    uint32_t d = out->dim_order[i];
    plan->sizes[plan->outer] = (uint32_t)out->sizes[d];
    plan->a_stride[plan->outer] = sa[d];
    plan->b_stride[plan->outer] = sb[d];
    ++plan->outer;
  }
  return MX_OK;
}

void mx_cm_binary_row(const mx_cm_binary *plan, uint32_t row, uint32_t *a_offset, uint32_t *b_offset) {
  uint32_t ao = 0, bo = 0;
  for (uint32_t i = plan->outer; i-- > 0;) {
    uint32_t index = row % plan->sizes[i];
    row /= plan->sizes[i];
    ao += index * plan->a_stride[i];
    bo += index * plan->b_stride[i];
  }
  *a_offset = ao;
  *b_offset = bo;
}
