/* aten::leaky_relu.out for float32: (self, negative_slope, out, ret); y = x > 0 ? x : x * negative_slope. */
#include "util/mx_unary_f32.h"

#define A(name) MX_ARG_aten_leaky_relu_##name

mx_arg_error mx_k_aten_leaky_relu_out_check(mx_value *const *args) { return mx_unary_f32_check(args, A(self), A(out)); }

mx_error mx_k_aten_leaky_relu_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const float slope = (float)mx_arg_scalar(args, A(negative_slope));
  const mx_unary_f32 u = mx_unary_f32_at(args, A(self), A(out));
  for (uint32_t i = 0; i < u.numel; ++i) {
    const float v = u.in[i];
    u.out[i] = v > 0.0f ? v : v * slope;
  }
  return MX_OK;
}
