/* cortex_m::quantized_conv2d.out: activations [N, C, H, W] in channels-last dim order. Body: util/mx_cm_conv2d.c. */
#include "util/mx_cm_conv2d.h"

mx_arg_error mx_k_cortex_m_quantized_conv2d_out_check(mx_value *const *args) { return mx_cm_conv2d_check(args, false); }

mx_error mx_k_cortex_m_quantized_conv2d_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  return mx_cm_conv2d(args, false);
}
