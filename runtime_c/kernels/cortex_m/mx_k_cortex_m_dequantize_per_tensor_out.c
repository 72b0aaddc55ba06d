/* cortex_m::dequantize_per_tensor.out: int8/int16 -> float32 as torch's dequantize_per_tensor computes it,
 * (float)(q - zero_point) * (float)scale. Args: (input, scale, zero_point, quant_min, quant_max, dtype,
 * out, ret); dtype is the input's. */
#include <math.h>

#include "util/mx_cm_args.h"

mx_error mx_k_cortex_m_dequantize_per_tensor_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
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
  if (out->dtype != MX_DTYPE_F32 || dtype != in->dtype || (dtype != MX_DTYPE_I8 && dtype != MX_DTYPE_I16)) {
    return MX_ERR_BAD_DTYPE;
  }
  MX_TRY(mx_tensor_check(in));
  MX_TRY(mx_tensor_check(out));
  if (!mx_cm_same_memory(in, out)) {
    return MX_ERR_BAD_SHAPE; /* any layout (channels-last included), the same for input and out */
  }
  if (!isfinite(scale) || qmin > qmax) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  const float s = (float)scale, fzp = (float)zp;
  float *y = (float *)out->data;
  for (uint32_t i = 0; i < in->numel; ++i) {
    int32_t q = dtype == MX_DTYPE_I8 ? ((const int8_t *)in->data)[i] : ((const int16_t *)in->data)[i];
    y[i] = ((float)q - fzp) * s;
  }
  return MX_OK;
}
