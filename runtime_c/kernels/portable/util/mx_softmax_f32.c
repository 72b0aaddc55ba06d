#include "mx_softmax_f32.h"

#include <math.h>

#include "mx_tensor_util.h"

_Static_assert(MX_ARG_aten_log_softmax_self == MX_ARG_aten_softmax_self &&
                   MX_ARG_aten_log_softmax_dim == MX_ARG_aten_softmax_dim &&
                   MX_ARG_aten_log_softmax_half_to_float == MX_ARG_aten_softmax_half_to_float &&
                   MX_ARG_aten_log_softmax_out == MX_ARG_aten_softmax_out,
               "log_softmax's arguments sit where softmax's do");

#define A(name) MX_ARG_aten_softmax_##name

mx_arg_error mx_softmax_f32_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_TRY(mx_check_arg_tensor(args, A(self), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_F32));
  MX_REFUSE_IF(mx_arg_bool(args, A(half_to_float)), A(half_to_float), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(!mx_same_shape(in, out), A(out), MX_ERR_BAD_SHAPE);
  uint32_t dim = 0;
  MX_CHECK(A(dim), mx_wrap_dim(mx_arg_int(args, A(dim)), in->dim, &dim));
  return MX_OK;
}

void mx_softmax_f32(mx_value *const *args, bool take_log) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  if (out->numel == 0) {
    return;
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
        const float e = expf(xs[k * inner] - m);
        if (!take_log) {
          ys[k * inner] = e;
        }
        sum += e;
      }
      const float shift = take_log ? m + logf(sum) : 0.0f;
      for (uint32_t k = 0; k < len; ++k) {
        ys[k * inner] = take_log ? xs[k * inner] - shift : ys[k * inner] / sum;
      }
    }
  }
}
