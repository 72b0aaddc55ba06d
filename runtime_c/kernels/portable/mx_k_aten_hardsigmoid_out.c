/* aten::hardsigmoid.out for float32: (self, out, ret). relu6(x + 3) / 6. */
#include "util/mx_unary_f32.h"

mx_error mx_k_aten_hardsigmoid_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 3) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  const float *x = NULL;
  float *y = NULL;
  uint32_t n = 0;
  mx_error err = mx_unary_f32_args(args, 0, 1, &x, &y, &n);
  if (err != MX_OK) {
    return err;
  }
  for (uint32_t i = 0; i < n; ++i) {
    float r = x[i] + 3.0f;
    r = r < 0.0f ? 0.0f : (r > 6.0f ? 6.0f : r);
    y[i] = r / 6.0f;
  }
  return MX_OK;
}
