/* aten::addmm.out for float32: out = beta * self + alpha * (mat1 @ mat2).
 * Args: (self, mat1 [M, K], mat2 [K, N], beta, alpha, out [M, N], ret); self broadcasts to [M, N]. */
#include "util/mx_args.h"
#include "util/mx_broadcast.h"
#include "util/mx_matmul_f32.h"
#include "util/mx_tensor_util.h"

mx_arg_error mx_k_aten_addmm_out_check(mx_value *const *args) {
  const mx_tensor *self = mx_arg_tensor(args, MX_ARG_aten_addmm_self);
  const mx_tensor *a = mx_arg_tensor(args, MX_ARG_aten_addmm_mat1), *b = mx_arg_tensor(args, MX_ARG_aten_addmm_mat2);
  const mx_tensor *out = mx_arg_tensor(args, MX_ARG_aten_addmm_out);
  static const uint8_t f32[4] = {MX_ARG_aten_addmm_self, MX_ARG_aten_addmm_mat1, MX_ARG_aten_addmm_mat2,
                                 MX_ARG_aten_addmm_out};
  MX_TRY(mx_check_arg_tensors(args, f32, 4, MX_DTYPE_F32));
  MX_REFUSE_IF(a->dim != 2, MX_ARG_aten_addmm_mat1, MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(b->dim != 2 || a->sizes[1] != b->sizes[0], MX_ARG_aten_addmm_mat2, MX_ERR_BAD_SHAPE);
  const int32_t sizes[2] = {a->sizes[0], b->sizes[1]};
  MX_CHECK(MX_ARG_aten_addmm_out, mx_check_sizes(out, sizes, 2));
  uint32_t strides[2];
  MX_CHECK(MX_ARG_aten_addmm_self, mx_broadcast_strides(self->sizes, self->dim, sizes, 2, strides));
  return MX_OK;
}

mx_error mx_k_aten_addmm_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *self = mx_arg_tensor(args, MX_ARG_aten_addmm_self);
  const mx_tensor *a = mx_arg_tensor(args, MX_ARG_aten_addmm_mat1), *b = mx_arg_tensor(args, MX_ARG_aten_addmm_mat2);
  const mx_tensor *out = mx_arg_tensor(args, MX_ARG_aten_addmm_out);
  uint32_t strides[2];
  (void)mx_broadcast_strides(self->sizes, self->dim, out->sizes, 2, strides); /* checked at load */
  uint32_t m = (uint32_t)out->sizes[0], n = (uint32_t)out->sizes[1];
  float *y = (float *)out->data;
  const float *s = (const float *)self->data;
  mx_matmul_f32((const float *)a->data, (const float *)b->data, y, m, (uint32_t)a->sizes[1], n);
  float fa = (float)mx_arg_scalar(args, MX_ARG_aten_addmm_alpha),
        fb = (float)mx_arg_scalar(args, MX_ARG_aten_addmm_beta);
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
