/* dim_order_ops::_clone_dim_order.out, any dtype: (self, non_blocking, dim_order?, out, ret). What
 * ExecuTorch writes for a clone (ours are removed before lowering): self copied into out's memory order,
 * the dtype kept. A Null dim_order means torch.preserve_format. Body: util/mx_dim_order_copy.c. */
#include "util/mx_dim_order_copy.h"

mx_arg_error mx_k_dim_order_ops_clone_dim_order_out_check(mx_value *const *args) {
  return mx_dim_order_copy_check(args);
}

mx_error mx_k_dim_order_ops_clone_dim_order_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  mx_dim_order_copy(args);
  return MX_OK;
}
