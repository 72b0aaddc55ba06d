/* aten::clamp.out for float32: (self, min?, max?, out, ret). Like torch, min applies first, so
 * min > max gives max everywhere, and NaN passes through. */
#include "util/mx_args.h"
#include "util/mx_unary_f32.h"

mx_error mx_k_aten_clamp_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 5) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  bool has_lo = false, has_hi = false;
  double lo = 0.0, hi = 0.0;
  MX_TRY(mx_arg_opt_scalar_as_double(args[1], &has_lo, &lo));
  MX_TRY(mx_arg_opt_scalar_as_double(args[2], &has_hi, &hi));
  mx_unary_f32 u;
  MX_TRY(mx_unary_f32_at(args, 0, 3, &u));
  if (!has_lo && !has_hi) {
    return MX_ERR_BAD_ARG_VALUE; /* torch: at least one of min and max */
  }
  float flo = (float)lo, fhi = (float)hi;
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
