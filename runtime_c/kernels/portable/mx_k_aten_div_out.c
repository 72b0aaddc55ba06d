/* aten::div.out for float32 with numpy-style broadcasting: (self, other, out, ret). */
#include "util/mx_binary_f32.h"

mx_error mx_k_aten_div_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  return mx_binary_f32(args, nargs, MX_BINOP_DIV);
}
