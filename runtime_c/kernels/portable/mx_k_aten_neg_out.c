/* aten::neg.out for float32: (self, out, ret). */
#include "util/mx_unary_f32.h"

mx_arg_error mx_k_aten_neg_out_check(mx_value *const *args) {
  return mx_unary_f32_check(args, MX_ARG_aten_neg_self, MX_ARG_aten_neg_out);
}

mx_error mx_k_aten_neg_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_unary_f32 u = mx_unary_f32_at(args, MX_ARG_aten_neg_self, MX_ARG_aten_neg_out);
  for (uint32_t i = 0; i < u.numel; ++i) {
    u.out[i] = -u.in[i];
  }
  return MX_OK;
}
