/* cortex_m::dequantize_per_tensor.out: int8/int16 -> float32 as torch's dequantize_per_tensor computes it,
 * (float)(q - zero_point) * (float)scale. Args: (input, scale, zero_point, quant_min, quant_max, dtype,
 * out, ret); dtype is the input's. */
#include <math.h>

#include "util/mx_cm_args.h"

mx_error mx_k_cortex_m_dequantize_per_tensor_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  mx_cm_qparams q;
  MX_TRY(mx_cm_qparams_args(args, nargs, &q));
  const mx_tensor *in = q.in, *out = q.out;
  if (out->dtype != MX_DTYPE_F32 || q.dtype != in->dtype || (q.dtype != MX_DTYPE_I8 && q.dtype != MX_DTYPE_I16)) {
    return MX_ERR_BAD_DTYPE;
  }
  MX_TRY(mx_tensor_check(in));
  MX_TRY(mx_tensor_check(out));
  if (!mx_cm_same_memory(in, out)) {
    return MX_ERR_BAD_SHAPE; /* any layout (channels-last included), the same for input and out */
  }
  if (!isfinite(q.scale) || q.quant_min > q.quant_max) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  const float s = (float)q.scale, fzp = (float)q.zero_point;
  float *y = (float *)out->data;
  for (uint32_t i = 0; i < in->numel; ++i) {
    int32_t v = q.dtype == MX_DTYPE_I8 ? ((const int8_t *)in->data)[i] : ((const int16_t *)in->data)[i];
    y[i] = ((float)v - fzp) * s;
  }
  return MX_OK;
}
