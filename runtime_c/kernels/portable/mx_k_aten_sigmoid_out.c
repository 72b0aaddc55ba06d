/* aten::sigmoid.out for float32: (self, out, ret). */
#include <math.h>

#include "util/mx_unary_f32.h"

mx_error mx_k_aten_sigmoid_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
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
    y[i] = 1.0f / (1.0f + expf(-x[i])); /* expf overflows to inf for very negative x: 1/inf = 0 */
  }
  return MX_OK;
}
