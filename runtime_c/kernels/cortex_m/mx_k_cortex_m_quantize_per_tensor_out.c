/* cortex_m::quantize_per_tensor.out: float32 -> int8/int16 as torch's quantize_per_tensor computes it,
 * clamp(round_half_even(x * (float)(1 / scale)) + zero_point, quant_min, quant_max). NaN becomes zero_point. */
#include <math.h>

#include "util/mx_cm_args.h"
#include "util/mx_f64_f32.h"

mx_arg_error mx_k_cortex_m_quantize_per_tensor_out_check(mx_value *const *args) {
  return mx_cm_qparams_check(args, true);
}

mx_error mx_k_cortex_m_quantize_per_tensor_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_cm_qparams q = mx_cm_qparams_read(args);
  /* torch multiplies the float32 tensor by 1/scale taken as a float32 scalar, rounds half to even
   * (nearbyint in the default rounding mode) and adds the zero point in float32 */
  const float inv = mx_f64_recip_to_f32(q.scale);
  const float fzp = (float)q.zero_point, fmin = (float)q.quant_min, fmax = (float)q.quant_max;
  const float *x = (const float *)q.in->data;
  for (uint32_t i = 0; i < q.in->numel; ++i) {
    float v = nearbyintf(x[i] * inv) + fzp;
    v = isnan(v) ? fzp : v;
    /* clamped after NaN's zero point too: a zero point outside the int type would convert undefined */
    v = v < fmin ? fmin : (v > fmax ? fmax : v);
    if (q.dtype == MX_DTYPE_I8) {
      ((int8_t *)q.out->data)[i] = (int8_t)v;
    } else {
      ((int16_t *)q.out->data)[i] = (int16_t)v;
    }
  }
  return MX_OK;
}
