/* cortex_m::quantized_depthwise_conv2d_nhwc.out: activations [N, H, W, C], contiguous. Body: util/mx_cm_depthwise_conv2d.c. */
#include "util/mx_cm_depthwise_conv2d.h"

mx_arg_error mx_k_cortex_m_quantized_depthwise_conv2d_nhwc_out_check(mx_value *const *args) {
  return mx_cm_depthwise_conv2d_check(args, true);
}

mx_error mx_k_cortex_m_quantized_depthwise_conv2d_nhwc_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  return mx_cm_depthwise_conv2d(args, true);
}
