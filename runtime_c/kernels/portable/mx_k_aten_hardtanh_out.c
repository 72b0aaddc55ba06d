/* aten::hardtanh.out for float32: (self, min_val, max_val, out, ret); y = min(max(x, min_val), max_val). */
#include "util/mx_args.h"
#include "util/mx_unary_f32.h"

mx_error mx_k_aten_hardtanh_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 5) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  double lo = -1.0, hi = 1.0;
  MX_TRY(mx_arg_scalar_as_double(args[1], &lo));
  MX_TRY(mx_arg_scalar_as_double(args[2], &hi));
  mx_unary_f32 u;
  MX_TRY(mx_unary_f32_at(args, 0, 3, &u));
  float flo = (float)lo, fhi = (float)hi;
  for (uint32_t i = 0; i < u.numel; ++i) {
    float v = u.in[i];
    v = v < flo ? flo : v;
    u.out[i] = v > fhi ? fhi : v;
  }
  return MX_OK;
}
