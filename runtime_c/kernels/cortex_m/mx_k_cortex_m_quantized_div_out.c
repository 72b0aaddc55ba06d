/* cortex_m::quantized_div.out as ExecuTorch's kernel computes it (CMSIS-NN has no division): per element
 * clamp(round_half_away((float)(a - a_zp) / (float)(b - b_zp) * (float)output_scale) + zp, int8), a quotient
 * of 0 where b is at its zero point; output_scale = a_scale / (b_scale * out_scale). Operands broadcast to
 * out (util/mx_cm_binary.h). */
#include <float.h>
#include <math.h>

#include "util/mx_cm_args.h"
#include "util/mx_cm_binary.h"

#define A(name) MX_ARG_cortex_m_quantized_div_##name

/* Beyond this the result clamps anyway; below it a float holds the value's integer part exactly. */
#define MX_CM_DIV_LIMIT 1.0e6f

mx_arg_error mx_k_cortex_m_quantized_div_out_check(mx_value *const *args) {
  const double scale = mx_arg_double(args, A(output_scale));
  MX_REFUSE_IF(!isfinite(scale) || !(scale > 0.0), A(output_scale), MX_ERR_BAD_ARG_VALUE);
  /* computed in float: a larger scale would be inf, and 0 * inf a NaN that no clamp catches */
  MX_REFUSE_IF(scale > FLT_MAX, A(output_scale), MX_ERR_ARITH_RANGE);
  static const uint8_t operands[3] = {A(self), A(other), A(out)};
  return mx_cm_binary_check(args, operands);
}

static int8_t divide(int32_t num, int32_t den, float scale, float out_zp) {
  float x = den != 0 ? (float)num / (float)den : 0.0f;
  x *= scale;
  x = x > MX_CM_DIV_LIMIT ? MX_CM_DIV_LIMIT : (x < -MX_CM_DIV_LIMIT ? -MX_CM_DIV_LIMIT : x);
  float r = (float)(int32_t)x; /* half away from zero, as std::round: the fraction is exact */
  const float frac = x - r;
  r += frac >= 0.5f ? 1.0f : (frac <= -0.5f ? -1.0f : 0.0f);
  r += out_zp;
  return (int8_t)(r > 127.0f ? 127.0f : (r < -128.0f ? -128.0f : r));
}

mx_error mx_k_cortex_m_quantized_div_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *a = mx_arg_tensor(args, A(self)), *b = mx_arg_tensor(args, A(other));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  mx_cm_binary plan;
  (void)mx_cm_binary_plan(a, b, out, &plan); /* checked at load */
  const int32_t a_zp = mx_cm_int(args, A(self_zero_point)), b_zp = mx_cm_int(args, A(other_zero_point));
  const float out_zp = (float)mx_cm_int(args, A(output_zero_point));
  const float scale = (float)mx_arg_double(args, A(output_scale));
  const int8_t *pa = (const int8_t *)a->data, *pb = (const int8_t *)b->data;
  int8_t *po = (int8_t *)out->data;
  for (uint32_t r = 0; r < plan.rows; ++r) {
    uint32_t ao, bo;
    mx_cm_binary_row(&plan, r, &ao, &bo);
    for (uint32_t i = 0; i < plan.row_len; ++i) {
      *po++ = divide((int32_t)pa[ao + i] - a_zp, (int32_t)pb[bo + i] - b_zp, scale, out_zp);
    }
  }
  return MX_OK;
}
