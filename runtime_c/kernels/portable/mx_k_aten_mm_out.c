/* aten::mm.out for float32: (self [M, K], mat2 [K, N], out [M, N], ret). */
#include "util/mx_args.h"
#include "util/mx_matmul_f32.h"
#include "util/mx_tensor_util.h"

mx_arg_error mx_k_aten_mm_out_check(mx_value *const *args) {
  const mx_tensor *a = mx_arg_tensor(args, MX_ARG_aten_mm_self), *b = mx_arg_tensor(args, MX_ARG_aten_mm_mat2);
  const mx_tensor *out = mx_arg_tensor(args, MX_ARG_aten_mm_out);
  MX_TRY(mx_check_arg_tensor(args, MX_ARG_aten_mm_self, MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, MX_ARG_aten_mm_mat2, MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, MX_ARG_aten_mm_out, MX_DTYPE_F32));
  MX_REFUSE_IF(a->dim != 2, MX_ARG_aten_mm_self, MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(b->dim != 2 || a->sizes[1] != b->sizes[0], MX_ARG_aten_mm_mat2, MX_ERR_BAD_SHAPE);
  const int32_t sizes[2] = {a->sizes[0], b->sizes[1]};
  MX_CHECK(MX_ARG_aten_mm_out, mx_check_sizes(out, sizes, 2));
  return MX_OK;
}

mx_error mx_k_aten_mm_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *a = mx_arg_tensor(args, MX_ARG_aten_mm_self), *b = mx_arg_tensor(args, MX_ARG_aten_mm_mat2);
  mx_matmul_f32((const float *)a->data, (const float *)b->data, (float *)mx_arg_tensor(args, MX_ARG_aten_mm_out)->data,
                (uint32_t)a->sizes[0], (uint32_t)a->sizes[1], (uint32_t)b->sizes[1]);
  return MX_OK;
}
