/* cortex_m::quantize_per_tensor.out: float32 -> int8/int16 as torch's quantize_per_tensor computes it,
 * clamp(round_half_even(x * (float)(1 / scale)) + zero_point, quant_min, quant_max).
 * Args: (input, scale, zero_point, quant_min, quant_max, dtype, out, ret). NaN becomes zero_point. */
#include <math.h>

#include "util/mx_cm_args.h"

mx_error mx_k_cortex_m_quantize_per_tensor_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 8) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *out = NULL;
  double scale = 0.0;
  int32_t zp = 0, qmin = 0, qmax = 0, dtype = 0;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_double(args[1], &scale));
  MX_TRY(mx_cm_int32(args[2], &zp));
  MX_TRY(mx_cm_int32(args[3], &qmin));
  MX_TRY(mx_cm_int32(args[4], &qmax));
  MX_TRY(mx_cm_int32(args[5], &dtype));
  MX_TRY(mx_arg_tensor(args[6], &out));
  MX_TRY(mx_arg_ret_is(args[7], out));
  MX_TRY(mx_tensor_check(in));
  if (in->dtype != MX_DTYPE_F32 || dtype != out->dtype || (dtype != MX_DTYPE_I8 && dtype != MX_DTYPE_I16)) {
    return MX_ERR_BAD_DTYPE;
  }
  MX_TRY(mx_tensor_check(out));
  if (!mx_cm_same_memory(in, out)) {
    return MX_ERR_BAD_SHAPE; /* any layout (channels-last included), the same for input and out */
  }
  int32_t lo = dtype == MX_DTYPE_I8 ? INT8_MIN : INT16_MIN, hi = dtype == MX_DTYPE_I8 ? INT8_MAX : INT16_MAX;
  if (!(scale > 0.0) || !isfinite(scale) || qmin < lo || qmax > hi || qmin > qmax) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  /* torch multiplies the float32 tensor by 1/scale taken as a float32 scalar, rounds half to even
   * (nearbyint in the default rounding mode) and adds the zero point in float32 */
  const float inv = (float)(1.0 / scale);
  const float fzp = (float)zp, fmin = (float)qmin, fmax = (float)qmax;
  const float *x = (const float *)in->data;
  for (uint32_t i = 0; i < in->numel; ++i) {
    float q = nearbyintf(x[i] * inv) + fzp;
    q = isnan(q) ? fzp : (q < fmin ? fmin : (q > fmax ? fmax : q));
    if (dtype == MX_DTYPE_I8) {
      ((int8_t *)out->data)[i] = (int8_t)q;
    } else {
      ((int16_t *)out->data)[i] = (int16_t)q;
    }
  }
  return MX_OK;
}
