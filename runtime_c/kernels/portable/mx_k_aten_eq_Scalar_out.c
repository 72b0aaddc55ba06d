/* aten::eq.Scalar_out: (self, other, out, ret); self float32 or integer/bool, other a Scalar, out
 * bool. Body: util/mx_compare.c. */
#include "util/mx_compare.h"

mx_arg_error mx_k_aten_eq_Scalar_out_check(mx_value *const *args) { return mx_compare_check(args, false); }

mx_error mx_k_aten_eq_Scalar_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  mx_compare(args, MX_CMP_EQ, false);
  return MX_OK;
}
