/* aten::bmm.out for float32: (self [B, M, K], mat2 [B, K, N], out [B, M, N], ret). */
#include "util/mx_args.h"
#include "util/mx_matmul_f32.h"
#include "util/mx_mm_args.h"

mx_arg_error mx_k_aten_bmm_out_check(mx_value *const *args) { return mx_mm_check(args, true); }

mx_error mx_k_aten_bmm_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *a = mx_arg_tensor(args, MX_ARG_aten_bmm_self), *b = mx_arg_tensor(args, MX_ARG_aten_bmm_mat2);
  const mx_tensor *out = mx_arg_tensor(args, MX_ARG_aten_bmm_out);
  uint32_t m = (uint32_t)a->sizes[1], k = (uint32_t)a->sizes[2], n = (uint32_t)b->sizes[2];
  for (uint32_t i = 0; i < (uint32_t)a->sizes[0]; ++i) {
    mx_matmul_f32((const float *)a->data + (size_t)i * m * k, (const float *)b->data + (size_t)i * k * n,
                  (float *)out->data + (size_t)i * m * n, m, k, n);
  }
  return MX_OK;
}
