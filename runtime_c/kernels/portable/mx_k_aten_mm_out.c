/* aten::mm.out for float32: (self [M, K], mat2 [K, N], out [M, N], ret). */
#include "util/mx_args.h"
#include "util/mx_matmul_f32.h"
#include "util/mx_mm_args.h"

mx_arg_error mx_k_aten_mm_out_check(mx_value *const *args) { return mx_mm_check(args, false); }

mx_error mx_k_aten_mm_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *a = mx_arg_tensor(args, MX_ARG_aten_mm_self), *b = mx_arg_tensor(args, MX_ARG_aten_mm_mat2);
  mx_matmul_f32((const float *)a->data, (const float *)b->data, (float *)mx_arg_tensor(args, MX_ARG_aten_mm_out)->data,
                (uint32_t)a->sizes[0], (uint32_t)a->sizes[1], (uint32_t)b->sizes[1]);
  return MX_OK;
}
