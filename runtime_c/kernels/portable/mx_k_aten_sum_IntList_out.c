/* aten::sum.IntList_out for float32: (self, dim?, keepdim, dtype?, out, ret). A Null or empty dim list
 * sums every dim; dtype may only be Null or float32. Body: util/mx_reduce_f32.c. */
#include "util/mx_reduce_f32.h"

mx_arg_error mx_k_aten_sum_IntList_out_check(mx_value *const *args) { return mx_reduce_f32_check(args, false); }

mx_error mx_k_aten_sum_IntList_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  (void)mx_reduce_f32_sum(args);
  return MX_OK;
}
