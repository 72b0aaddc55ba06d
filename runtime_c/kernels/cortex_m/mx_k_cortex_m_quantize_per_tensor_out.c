/* cortex_m::quantize_per_tensor.out: float32 -> int8/int16 as torch's quantize_per_tensor computes it,
 * clamp(round_half_even(x * (float)(1 / scale)) + zero_point, quant_min, quant_max). NaN becomes zero_point. */
#include <math.h>

#include "util/mx_cm_args.h"

#define A(name) MX_ARG_cortex_m_quantize_per_tensor_##name

mx_error mx_k_cortex_m_quantize_per_tensor_out_check(mx_kernel_ctx *ctx, mx_value *const *args) {
  MX_TRY(mx_cm_qparams_check(ctx, args));
  const mx_cm_qparams q = mx_cm_qparams_read(args);
  MX_CHECK(ctx, A(input), mx_tensor_check(q.in));
  MX_REFUSE_IF(ctx, q.in->dtype != MX_DTYPE_F32, A(input), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(ctx, q.dtype != q.out->dtype || (q.dtype != MX_DTYPE_I8 && q.dtype != MX_DTYPE_I16), A(dtype),
               MX_ERR_BAD_DTYPE);
  MX_CHECK(ctx, A(out), mx_tensor_check(q.out));
  /* any layout (channels-last included), the same for input and out */
  MX_REFUSE_IF(ctx, !mx_cm_same_memory(q.in, q.out), A(out), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(ctx, !(q.scale > 0.0) || !isfinite(q.scale), A(scale), MX_ERR_BAD_ARG_VALUE);
  const int32_t lo = q.dtype == MX_DTYPE_I8 ? INT8_MIN : INT16_MIN, hi = q.dtype == MX_DTYPE_I8 ? INT8_MAX : INT16_MAX;
  MX_REFUSE_IF(ctx, q.quant_min < lo || q.quant_min > q.quant_max, A(quant_min), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(ctx, q.quant_max > hi, A(quant_max), MX_ERR_BAD_ARG_VALUE);
  return MX_OK;
}

mx_error mx_k_cortex_m_quantize_per_tensor_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_cm_qparams q = mx_cm_qparams_read(args);
  /* torch multiplies the float32 tensor by 1/scale taken as a float32 scalar, rounds half to even
   * (nearbyint in the default rounding mode) and adds the zero point in float32 */
  const float inv = (float)(1.0 / q.scale);
  const float fzp = (float)q.zero_point, fmin = (float)q.quant_min, fmax = (float)q.quant_max;
  const float *x = (const float *)q.in->data;
  for (uint32_t i = 0; i < q.in->numel; ++i) {
    float v = nearbyintf(x[i] * inv) + fzp;
    v = isnan(v) ? fzp : (v < fmin ? fmin : (v > fmax ? fmax : v));
    if (q.dtype == MX_DTYPE_I8) {
      ((int8_t *)q.out->data)[i] = (int8_t)v;
    } else {
      ((int16_t *)q.out->data)[i] = (int16_t)v;
    }
  }
  return MX_OK;
}
