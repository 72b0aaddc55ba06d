/* aten::hardsigmoid.out for float32: (self, out, ret). relu6(x + 3) / 6. */
#include "util/mx_unary_f32.h"

mx_arg_error mx_k_aten_hardsigmoid_out_check(mx_value *const *args) {
  return mx_unary_f32_check(args, MX_ARG_aten_hardsigmoid_self, MX_ARG_aten_hardsigmoid_out);
}

mx_error mx_k_aten_hardsigmoid_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_unary_f32 u = mx_unary_f32_at(args, MX_ARG_aten_hardsigmoid_self, MX_ARG_aten_hardsigmoid_out);
  for (uint32_t i = 0; i < u.numel; ++i) {
    u.out[i] = mx_relu6_plus3_f32(u.in[i]) / 6.0f;
  }
  return MX_OK;
}
