/* aten::tanh.out for float32: (self, out, ret). */
#include <math.h>

#include "util/mx_unary_f32.h"

mx_error mx_k_aten_tanh_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
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
    y[i] = tanhf(x[i]);
  }
  return MX_OK;
}
