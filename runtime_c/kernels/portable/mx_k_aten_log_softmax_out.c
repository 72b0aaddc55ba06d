/* aten::_log_softmax.out for float32: (self, dim, half_to_float, out, ret). Each slice along dim is
 * x - max - log(sum(exp(x - max))): with the maximum taken out, expf cannot overflow and the log of the sum
 * stays finite, where log(softmax(x)) would reach -inf for large negative differences. */
#include <math.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_log_softmax_##name

mx_arg_error mx_k_aten_log_softmax_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_TRY(mx_check_arg_tensor(args, A(self), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_F32));
  /* torch: half_to_float only for half inputs */
  MX_REFUSE_IF(mx_arg_bool(args, A(half_to_float)), A(half_to_float), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(!mx_same_shape(in, out), A(out), MX_ERR_BAD_SHAPE);
  uint32_t dim = 0;
  MX_CHECK(A(dim), mx_wrap_dim(mx_arg_int(args, A(dim)), in->dim, &dim));
  return MX_OK;
}

mx_error mx_k_aten_log_softmax_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  if (out->numel == 0) {
    return MX_OK;
  }
  const uint32_t dim = mx_wrapped_dim(mx_arg_int(args, A(dim)), in->dim);
  const uint32_t len = in->dim == 0 ? 1u : (uint32_t)in->sizes[dim];
  const uint32_t outer = in->dim == 0 ? 1u : mx_size_prod(in->sizes, 0, dim);
  const uint32_t inner = in->dim == 0 ? 1u : mx_size_prod(in->sizes, dim + 1, in->dim);
  for (uint32_t o = 0; o < outer; ++o) {
    for (uint32_t i = 0; i < inner; ++i) {
      const float *xs = (const float *)in->data + (size_t)o * len * inner + i;
      float *ys = (float *)out->data + (size_t)o * len * inner + i;
      float m = -INFINITY;
      for (uint32_t k = 0; k < len; ++k) {
        m = xs[k * inner] > m ? xs[k * inner] : m;
      }
      float sum = 0.0f;
      for (uint32_t k = 0; k < len; ++k) {
        sum += expf(xs[k * inner] - m);
      }
      const float shift = m + logf(sum);
      for (uint32_t k = 0; k < len; ++k) {
        ys[k * inner] = xs[k * inner] - shift;
      }
    }
  }
  return MX_OK;
}
