/* aten::gt.Tensor_out: (self, other, out, ret); self float32, other a float32 tensor broadcast with self, out bool. Body:
 * util/mx_compare_f32.c. */
#include "util/mx_compare_f32.h"

mx_arg_error mx_k_aten_gt_Tensor_out_check(mx_value *const *args) { return mx_compare_f32_check(args, true); }

mx_error mx_k_aten_gt_Tensor_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  mx_compare_f32(args, MX_CMP_GT, true);
  return MX_OK;
}
