/* cortex_m::dequantize_per_tensor.out: int8/int16 -> float32 as torch's dequantize_per_tensor computes it,
 * (float)(q - zero_point) * (float)scale; dtype is the input's. */
#include <math.h>

#include "util/mx_cm_args.h"

#define A(name) MX_ARG_cortex_m_dequantize_per_tensor_##name

mx_error mx_k_cortex_m_dequantize_per_tensor_out_check(mx_kernel_ctx *ctx, mx_value *const *args) {
  MX_TRY(mx_cm_qparams_check(ctx, args));
  const mx_cm_qparams q = mx_cm_qparams_read(args);
  MX_REFUSE_IF(ctx, q.out->dtype != MX_DTYPE_F32, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(ctx, q.dtype != q.in->dtype || (q.dtype != MX_DTYPE_I8 && q.dtype != MX_DTYPE_I16), A(dtype),
               MX_ERR_BAD_DTYPE);
  MX_CHECK(ctx, A(input), mx_tensor_check(q.in));
  MX_CHECK(ctx, A(out), mx_tensor_check(q.out));
  /* any layout (channels-last included), the same for input and out */
  MX_REFUSE_IF(ctx, !mx_cm_same_memory(q.in, q.out), A(out), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(ctx, !isfinite(q.scale), A(scale), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(ctx, q.quant_min > q.quant_max, A(quant_min), MX_ERR_BAD_ARG_VALUE);
  return MX_OK;
}

mx_error mx_k_cortex_m_dequantize_per_tensor_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_cm_qparams q = mx_cm_qparams_read(args);
  const float s = (float)q.scale, fzp = (float)q.zero_point;
  float *y = (float *)q.out->data;
  for (uint32_t i = 0; i < q.in->numel; ++i) {
    int32_t v = q.dtype == MX_DTYPE_I8 ? ((const int8_t *)q.in->data)[i] : ((const int16_t *)q.in->data)[i];
    y[i] = ((float)v - fzp) * s;
  }
  return MX_OK;
}
