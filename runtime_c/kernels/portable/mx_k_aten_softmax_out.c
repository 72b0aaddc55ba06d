/* aten::_softmax.out for float32: (self, dim, half_to_float, out, ret). Each slice along dim has its
 * maximum subtracted before expf, so large inputs do not overflow. */
#include <math.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_softmax_##name

mx_arg_error mx_k_aten_softmax_out_check(mx_value *const *args) {
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

mx_error mx_k_aten_softmax_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const uint32_t dim = mx_wrapped_dim(mx_arg_int(args, A(dim)), in->dim);
  uint32_t len = in->dim == 0 ? 1u : (uint32_t)in->sizes[dim];
  uint32_t outer = in->dim == 0 ? 1u : mx_size_prod(in->sizes, 0, dim);
  uint32_t inner = in->dim == 0 ? 1u : mx_size_prod(in->sizes, dim + 1, in->dim);
  if (out->numel == 0) {
    return MX_OK;
  }
  const float *x = (const float *)in->data;
  float *y = (float *)out->data;
  for (uint32_t o = 0; o < outer; ++o) {
    for (uint32_t i = 0; i < inner; ++i) {
      const float *xs = x + (size_t)o * len * inner + i;
      float *ys = y + (size_t)o * len * inner + i;
      float m = -INFINITY;
      for (uint32_t k = 0; k < len; ++k) {
        m = xs[k * inner] > m ? xs[k * inner] : m;
      }
      float sum = 0.0f;
      for (uint32_t k = 0; k < len; ++k) {
        float e = expf(xs[k * inner] - m);
        ys[k * inner] = e;
        sum += e;
      }
      for (uint32_t k = 0; k < len; ++k) {
        ys[k * inner] /= sum;
      }
    }
  }
  return MX_OK;
}
