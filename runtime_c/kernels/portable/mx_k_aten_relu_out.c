/* aten::relu.out for float32: (self, out, ret). */
#include "util/mx_args.h"
#include "util/mx_unary_f32.h"

mx_error mx_k_aten_relu_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  mx_unary_f32 u;
  MX_TRY(mx_unary_f32_args(args, nargs, &u));
  for (uint32_t i = 0; i < u.numel; ++i) {
    u.out[i] = u.in[i] < 0.0f ? 0.0f : u.in[i]; /* NaN passes through, as in torch */
  }
  return MX_OK;
}
