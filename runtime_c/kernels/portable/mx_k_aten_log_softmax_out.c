/* aten::_log_softmax.out for float32: (self, dim, half_to_float, out, ret); util/mx_softmax_f32.h. */
#include "util/mx_softmax_f32.h"

mx_arg_error mx_k_aten_log_softmax_out_check(mx_value *const *args) { return mx_softmax_f32_check(args); }

mx_error mx_k_aten_log_softmax_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  mx_softmax_f32(args, true);
  return MX_OK;
}
