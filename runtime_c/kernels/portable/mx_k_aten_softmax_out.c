/* aten::_softmax.out for float32: (self, dim, half_to_float, out, ret). Each slice along dim has its
 * maximum subtracted before expf, so large inputs do not overflow. */
#include <math.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

mx_error mx_k_aten_softmax_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 5) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *out = NULL;
  int64_t dim_arg = 0;
  bool half_to_float = false;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_int(args[1], &dim_arg));
  MX_TRY(mx_arg_bool(args[2], &half_to_float));
  MX_TRY(mx_arg_tensor(args[3], &out));
  MX_TRY(mx_arg_ret_is(args[4], out));
  MX_TRY(mx_check_tensor(in, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(out, MX_DTYPE_F32));
  if (half_to_float) {
    return MX_ERR_BAD_ARG_VALUE; /* torch: only for half inputs */
  }
  if (!mx_same_shape(in, out)) {
    return MX_ERR_BAD_SHAPE;
  }
  uint32_t dim = 0;
  MX_TRY(mx_wrap_dim(dim_arg, in->dim, &dim));
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
