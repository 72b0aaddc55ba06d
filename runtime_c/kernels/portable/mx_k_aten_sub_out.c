/* aten::sub.out for float32 with numpy-style broadcasting: (self, other, alpha, out, ret). */
#include "util/mx_binary_f32.h"

mx_error mx_k_aten_sub_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  return mx_binary_f32(args, nargs, MX_BINOP_SUB);
}
