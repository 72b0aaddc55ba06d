/* dim_order_ops::_to_dim_order_copy.out: (self, non_blocking, dim_order?, out, ret). What `.to()` lowers
 * to: copies self into out's memory order and converts it to out's dtype. A Null dim_order means
 * torch.preserve_format: out keeps self's dim order. Body: util/mx_dim_order_convert.c. A firmware whose model's
 * copies all keep their dtype links _clone_dim_order's kernel for this op instead (mcu_export/firmware/
 * kernel_variants.py). */
#include "util/mx_dim_order_convert.h"

mx_arg_error mx_k_dim_order_ops_to_dim_order_copy_out_check(mx_value *const *args) {
  return mx_dim_order_convert_check(args);
}

mx_error mx_k_dim_order_ops_to_dim_order_copy_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  mx_dim_order_convert(args);
  return MX_OK;
}
