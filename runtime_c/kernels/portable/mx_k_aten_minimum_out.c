/* aten::minimum.out for float32 with numpy-style broadcasting; a NaN operand gives NaN. Body:
 * util/mx_binary_f32.c. */
#include "util/mx_binary_f32.h"

mx_arg_error mx_k_aten_minimum_out_check(mx_value *const *args) { return mx_binary_f32_check(args, MX_BINOP_MIN); }

mx_error mx_k_aten_minimum_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  mx_binary_f32(args, MX_BINOP_MIN);
  return MX_OK;
}
