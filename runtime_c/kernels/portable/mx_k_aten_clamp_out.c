/* aten::clamp.out for float32: (self, min?, max?, out, ret). Like torch, min applies first, so
 * min > max gives max everywhere, and NaN passes through. */
#include "util/mx_unary_f32.h"

mx_arg_error mx_k_aten_clamp_out_check(mx_value *const *args) {
  MX_TRY(mx_unary_f32_check(args, MX_ARG_aten_clamp_self, MX_ARG_aten_clamp_out));
  /* torch: at least one of min and max */
  MX_REFUSE_IF(mx_arg_none(args, MX_ARG_aten_clamp_min) && mx_arg_none(args, MX_ARG_aten_clamp_max),
               MX_ARG_aten_clamp_max, MX_ERR_BAD_ARG_VALUE);
  return MX_OK;
}

mx_error mx_k_aten_clamp_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const bool has_lo = !mx_arg_none(args, MX_ARG_aten_clamp_min), has_hi = !mx_arg_none(args, MX_ARG_aten_clamp_max);
  const float flo = has_lo ? (float)mx_arg_scalar(args, MX_ARG_aten_clamp_min) : 0.0f;
  const float fhi = has_hi ? (float)mx_arg_scalar(args, MX_ARG_aten_clamp_max) : 0.0f;
  const mx_unary_f32 u = mx_unary_f32_at(args, MX_ARG_aten_clamp_self, MX_ARG_aten_clamp_out);
  for (uint32_t i = 0; i < u.numel; ++i) {
    float v = u.in[i];
    if (has_lo && v < flo) {
      v = flo;
    }
    if (has_hi && v > fhi) {
      v = fhi;
    }
    u.out[i] = v;
  }
  return MX_OK;
}
