/* aten::hardtanh.out for float32: (self, min_val, max_val, out, ret); y = min(max(x, min_val), max_val). */
#include "util/mx_unary_f32.h"

mx_arg_error mx_k_aten_hardtanh_out_check(mx_value *const *args) {
  return mx_unary_f32_check(args, MX_ARG_aten_hardtanh_self, MX_ARG_aten_hardtanh_out);
}

mx_error mx_k_aten_hardtanh_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const float flo = (float)mx_arg_scalar(args, MX_ARG_aten_hardtanh_min_val);
  const float fhi = (float)mx_arg_scalar(args, MX_ARG_aten_hardtanh_max_val);
  const mx_unary_f32 u = mx_unary_f32_at(args, MX_ARG_aten_hardtanh_self, MX_ARG_aten_hardtanh_out);
  for (uint32_t i = 0; i < u.numel; ++i) {
    float v = u.in[i];
    v = v < flo ? flo : v;
    u.out[i] = v > fhi ? fhi : v;
  }
  return MX_OK;
}
