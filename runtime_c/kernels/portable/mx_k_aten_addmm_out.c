/* aten::addmm.out for float32: out = beta * self + alpha * (mat1 @ mat2).
 * Args: (self, mat1 [M, K], mat2 [K, N], beta, alpha, out [M, N], ret); self broadcasts to [M, N]. */
#include "util/mx_args.h"
#include "util/mx_broadcast.h"
#include "util/mx_matmul_f32.h"
#include "util/mx_tensor_util.h"

mx_error mx_k_aten_addmm_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 7) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *self = NULL, *a = NULL, *b = NULL, *out = NULL;
  double beta = 1.0, alpha = 1.0;
  MX_TRY(mx_arg_tensor(args[0], &self));
  MX_TRY(mx_arg_tensor(args[1], &a));
  MX_TRY(mx_arg_tensor(args[2], &b));
  MX_TRY(mx_arg_scalar_as_double(args[3], &beta));
  MX_TRY(mx_arg_scalar_as_double(args[4], &alpha));
  MX_TRY(mx_arg_tensor(args[5], &out));
  MX_TRY(mx_arg_ret_is(args[6], out));
  MX_TRY(mx_check_tensor(self, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(a, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(b, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(out, MX_DTYPE_F32));
  if (a->dim != 2 || b->dim != 2 || a->sizes[1] != b->sizes[0]) {
    return MX_ERR_BAD_SHAPE;
  }
  int32_t sizes[2] = {a->sizes[0], b->sizes[1]};
  MX_TRY(mx_check_sizes(out, sizes, 2));
  uint32_t strides[2];
  MX_TRY(mx_broadcast_strides(self->sizes, self->dim, sizes, 2, strides));

  uint32_t m = (uint32_t)sizes[0], n = (uint32_t)sizes[1];
  float *y = (float *)out->data;
  const float *s = (const float *)self->data;
  mx_matmul_f32((const float *)a->data, (const float *)b->data, y, m, (uint32_t)a->sizes[1], n);
  float fa = (float)alpha, fb = (float)beta;
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      float acc = fa * y[(size_t)i * n + j];
      /* torch ignores self when beta is 0, so NaN or Inf in it do not propagate */
      if (fb != 0.0f) {
        acc += fb * s[i * strides[0] + j * strides[1]];
      }
      y[(size_t)i * n + j] = acc;
    }
  }
  return MX_OK;
}
