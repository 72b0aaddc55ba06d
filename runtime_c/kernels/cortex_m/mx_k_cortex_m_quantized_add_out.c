/* cortex_m::quantized_add.out via arm_elementwise_add_s8 (left shift 20, as ExecuTorch's lowering
 * computes the multipliers for). Operands broadcast to out (util/mx_cm_binary.h). */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"
#include "util/mx_cm_binary.h"
#include "util/mx_cm_ranges.h"

#define MX_CM_ADD_LEFT_SHIFT 20
#define A(name) MX_ARG_cortex_m_quantized_add_##name

mx_arg_error mx_k_cortex_m_quantized_add_out_check(mx_value *const *args) {
  MX_REFUSE_IF(mx_arg_int(args, A(activation_max)) < mx_arg_int(args, A(activation_min)), A(activation_max),
               MX_ERR_BAD_ARG_VALUE);
  /* each offset input, shifted left by 20, is requantized to the common scale; the two are summed and
   * requantized again: bounds for any input bytes (a multiplier may be negative: sub negates other's) */
  const int64_t a = mx_cm_requant_max(mx_cm_offset_max(-mx_arg_int(args, A(self_zero_point))) << MX_CM_ADD_LEFT_SHIFT,
                                      mx_arg_int(args, A(self_multiplier)), mx_arg_int(args, A(self_shift)));
  const int64_t b = mx_cm_requant_max(mx_cm_offset_max(-mx_arg_int(args, A(other_zero_point))) << MX_CM_ADD_LEFT_SHIFT,
                                      mx_arg_int(args, A(other_multiplier)), mx_arg_int(args, A(other_shift)));
  MX_REFUSE_IF(a > INT32_MAX, A(self_shift), MX_ERR_ARITH_RANGE);
  MX_REFUSE_IF(b > INT32_MAX - a, A(other_shift), MX_ERR_ARITH_RANGE); /* the sum, too */
  MX_REFUSE_IF(!mx_cm_requant_fits(a + b, mx_arg_int(args, A(output_multiplier)), mx_arg_int(args, A(output_shift))),
               A(output_shift), MX_ERR_ARITH_RANGE);
  static const uint8_t operands[3] = {A(self), A(other), A(out)};
  return mx_cm_binary_check(args, operands);
}

mx_error mx_k_cortex_m_quantized_add_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *a = mx_arg_tensor(args, A(self)), *b = mx_arg_tensor(args, A(other));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  mx_cm_binary plan;
  (void)mx_cm_binary_plan(a, b, out, &plan); /* checked at load */
  const int32_t a_zp = mx_cm_int(args, A(self_zero_point)), a_mult = mx_cm_int(args, A(self_multiplier));
  const int32_t a_shift = mx_cm_int(args, A(self_shift)), b_zp = mx_cm_int(args, A(other_zero_point));
  const int32_t b_mult = mx_cm_int(args, A(other_multiplier)), b_shift = mx_cm_int(args, A(other_shift));
  const int32_t out_zp = mx_cm_int(args, A(output_zero_point)), out_mult = mx_cm_int(args, A(output_multiplier));
  const int32_t out_shift = mx_cm_int(args, A(output_shift));
  const int32_t act_min = mx_cm_int(args, A(activation_min)), act_max = mx_cm_int(args, A(activation_max));
  const int8_t *pa = (const int8_t *)a->data, *pb = (const int8_t *)b->data;
  int8_t *po = (int8_t *)out->data;
  for (uint32_t r = 0; r < plan.rows; ++r) {
    uint32_t ao, bo;
    mx_cm_binary_row(&plan, r, &ao, &bo);
    MX_TRY(mx_cm_status(arm_elementwise_add_s8(pa + ao, pb + bo, -a_zp, a_mult, a_shift, -b_zp, b_mult, b_shift,
                                               MX_CM_ADD_LEFT_SHIFT, po + r * plan.row_len, out_zp, out_mult, out_shift,
                                               act_min, act_max, (int32_t)plan.row_len)));
  }
  return MX_OK;
}
