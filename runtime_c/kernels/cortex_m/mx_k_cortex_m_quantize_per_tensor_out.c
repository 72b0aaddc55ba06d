/* cortex_m::quantize_per_tensor.out: float32 -> int8/int16 as torch's quantize_per_tensor computes it,
 * clamp(round_half_even(x * (float)(1 / scale)) + zero_point, quant_min, quant_max).
 * Args: (input, scale, zero_point, quant_min, quant_max, dtype, out, ret). NaN becomes zero_point. */
#include <math.h>

#include "util/mx_cm_args.h"

mx_error mx_k_cortex_m_quantize_per_tensor_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  mx_cm_qparams q;
  MX_TRY(mx_cm_qparams_args(args, nargs, &q));
  const mx_tensor *in = q.in, *out = q.out;
  MX_TRY(mx_tensor_check(in));
  if (in->dtype != MX_DTYPE_F32 || q.dtype != out->dtype || (q.dtype != MX_DTYPE_I8 && q.dtype != MX_DTYPE_I16)) {
    return MX_ERR_BAD_DTYPE;
  }
  MX_TRY(mx_tensor_check(out));
  if (!mx_cm_same_memory(in, out)) {
    return MX_ERR_BAD_SHAPE; /* any layout (channels-last included), the same for input and out */
  }
  int32_t lo = q.dtype == MX_DTYPE_I8 ? INT8_MIN : INT16_MIN, hi = q.dtype == MX_DTYPE_I8 ? INT8_MAX : INT16_MAX;
  if (!(q.scale > 0.0) || !isfinite(q.scale) || q.quant_min < lo || q.quant_max > hi || q.quant_min > q.quant_max) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  /* torch multiplies the float32 tensor by 1/scale taken as a float32 scalar, rounds half to even
   * (nearbyint in the default rounding mode) and adds the zero point in float32 */
  const float inv = (float)(1.0 / q.scale);
  const float fzp = (float)q.zero_point, fmin = (float)q.quant_min, fmax = (float)q.quant_max;
  const float *x = (const float *)in->data;
  for (uint32_t i = 0; i < in->numel; ++i) {
    float v = nearbyintf(x[i] * inv) + fzp;
    v = isnan(v) ? fzp : (v < fmin ? fmin : (v > fmax ? fmax : v));
    if (q.dtype == MX_DTYPE_I8) {
      ((int8_t *)out->data)[i] = (int8_t)v;
    } else {
      ((int16_t *)out->data)[i] = (int16_t)v;
    }
  }
  return MX_OK;
}
