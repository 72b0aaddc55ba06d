#include "mx_cm_binary.h"

#include "mx_cm_args.h"

static mx_error check_i8(const mx_tensor *t) { return t->dtype == MX_DTYPE_I8 ? MX_OK : MX_ERR_BAD_DTYPE; }

/* t is one channel row of out: its only non-1 size is out's innermost memory dim (trailing dims aligned,
 * as broadcasting aligns them). */
static bool is_channel_row(const mx_tensor *t, const mx_tensor *out) {
  if (out->dim == 0 || t->dim > out->dim || !mx_is_contiguous(t)) {
    return false;
  }
  uint32_t inner = out->dim_order[out->dim - 1];
  uint32_t lead = out->dim - t->dim;
  if (inner < lead) {
    return false;
  }
  for (uint32_t i = 0; i < t->dim; ++i) {
    int32_t want = (i + lead == inner) ? out->sizes[inner] : 1;
    if (t->sizes[i] != want) {
      return false;
    }
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
  const bool a_full = mx_cm_same_memory(a, out), b_full = mx_cm_same_memory(b, out);
  if (a_full && b_full) {
    *plan = (mx_cm_binary){out->numel > 0 ? 1u : 0u, out->numel, 0, 0};
    return MX_OK;
  }
  if (!a_full && !b_full) {
    return MX_ERR_BAD_SHAPE;
  }
  const mx_tensor *row = a_full ? b : a;
  if (!is_channel_row(row, out)) {
    return MX_ERR_BAD_SHAPE;
  }
  uint32_t c = (uint32_t)out->sizes[out->dim_order[out->dim - 1]];
  uint32_t rows = c > 0 ? out->numel / c : 0;
  *plan = (mx_cm_binary){rows, c, a_full ? c : 0, a_full ? 0 : c};
  return MX_OK;
}
