/* aten::elu.out for float32: (self, alpha, scale, input_scale, out, ret), torch's formula:
 * y = x > 0 ? x * scale : expm1(x * input_scale) * alpha * scale. nn.SELU and nn.ELU both export to it.
 * expm1f rather than expf - 1: near 0 the difference of two close numbers would lose every digit. */
#include <math.h>

#include "util/mx_unary_f32.h"

#define A(name) MX_ARG_aten_elu_##name

mx_arg_error mx_k_aten_elu_out_check(mx_value *const *args) { return mx_unary_f32_check(args, A(self), A(out)); }

mx_error mx_k_aten_elu_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const float scale = (float)mx_arg_scalar(args, A(scale));
  const float negative = (float)(mx_arg_scalar(args, A(alpha)) * mx_arg_scalar(args, A(scale)));
  const float input_scale = (float)mx_arg_scalar(args, A(input_scale));
  const mx_unary_f32 u = mx_unary_f32_at(args, A(self), A(out));
  for (uint32_t i = 0; i < u.numel; ++i) {
    const float v = u.in[i];
    u.out[i] = v > 0.0f ? v * scale : expm1f(v * input_scale) * negative;
  }
  return MX_OK;
}
