/* cortex_m::dequantize_per_tensor.out: int8/int16 -> float32 as torch's dequantize_per_tensor computes it,
 * (float)(q - zero_point) * (float)scale; dtype is the input's. */
#include "util/mx_cm_args.h"
#include "util/mx_f64_f32.h"

mx_arg_error mx_k_cortex_m_dequantize_per_tensor_out_check(mx_value *const *args) {
  return mx_cm_qparams_check(args, false);
}

mx_error mx_k_cortex_m_dequantize_per_tensor_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_cm_qparams q = mx_cm_qparams_read(args);
  const float s = mx_f64_to_f32(q.scale), fzp = (float)q.zero_point;
  float *y = (float *)q.out->data;
  for (uint32_t i = 0; i < q.in->numel; ++i) {
    int32_t v = q.dtype == MX_DTYPE_I8 ? ((const int8_t *)q.in->data)[i] : ((const int16_t *)q.in->data)[i];
    y[i] = ((float)v - fzp) * s;
  }
  return MX_OK;
}
