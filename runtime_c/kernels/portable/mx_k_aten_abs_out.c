/* aten::abs.out for float32: (self, out, ret). */
#include "util/mx_unary_f32.h"

mx_arg_error mx_k_aten_abs_out_check(mx_value *const *args) {
  return mx_unary_f32_check(args, MX_ARG_aten_abs_self, MX_ARG_aten_abs_out);
}

mx_error mx_k_aten_abs_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_unary_f32 u = mx_unary_f32_at(args, MX_ARG_aten_abs_self, MX_ARG_aten_abs_out);
  for (uint32_t i = 0; i < u.numel; ++i) {
    u.out[i] = __builtin_fabsf(u.in[i]); /* clears the sign bit: -0 and -NaN too, as torch does */
  }
  return MX_OK;
}
