/* aten::hardsigmoid.out for float32: (self, out, ret). relu6(x + 3) / 6. */
#include "util/mx_args.h"
#include "util/mx_unary_f32.h"

mx_error mx_k_aten_hardsigmoid_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  mx_unary_f32 u;
  MX_TRY(mx_unary_f32_args(args, nargs, &u));
  for (uint32_t i = 0; i < u.numel; ++i) {
    u.out[i] = mx_relu6_plus3_f32(u.in[i]) / 6.0f;
  }
  return MX_OK;
}
