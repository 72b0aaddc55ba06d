/* aten::sigmoid.out for float32: (self, out, ret). */
#include <math.h>

#include "util/mx_unary_f32.h"

mx_arg_error mx_k_aten_sigmoid_out_check(mx_value *const *args) {
  return mx_unary_f32_check(args, MX_ARG_aten_sigmoid_self, MX_ARG_aten_sigmoid_out);
}

mx_error mx_k_aten_sigmoid_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_unary_f32 u = mx_unary_f32_at(args, MX_ARG_aten_sigmoid_self, MX_ARG_aten_sigmoid_out);
  for (uint32_t i = 0; i < u.numel; ++i) {
    u.out[i] = 1.0f / (1.0f + expf(-u.in[i])); /* expf overflows to inf for very negative x: 1/inf = 0 */
  }
  return MX_OK;
}
