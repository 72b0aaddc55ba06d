/* aten::mean.out for float32: (self, dim?, keepdim, dtype?, out, ret). A Null or empty dim list
 * reduces every dim; dtype may only be Null or float32. A channels-last self may be averaged over H and W (dims
 * 2 and 3: a global average pool). Body: util/mx_reduce_f32.c. */
#include "util/mx_reduce_f32.h"

mx_arg_error mx_k_aten_mean_out_check(mx_value *const *args) { return mx_reduce_f32_check(args, true); }

mx_error mx_k_aten_mean_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const float count = (float)mx_reduce_f32_sum(args);
  mx_tensor *out = mx_arg_tensor(args, MX_ARG_aten_mean_out);
  float *y = (float *)out->data;
  /* count 0 (an empty reduced dim) gives NaN, as in torch */
  for (uint32_t i = 0; i < out->numel; ++i) {
    y[i] /= count;
  }
  return MX_OK;
}
