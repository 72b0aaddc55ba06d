/* cortex_m::quantized_mul.out via arm_elementwise_mul_s8, clamped to the int8 range.
 * Operands broadcast to out (util/mx_cm_binary.h). */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"
#include "util/mx_cm_binary.h"
#include "util/mx_cm_ranges.h"

#define A(name) MX_ARG_cortex_m_quantized_mul_##name

mx_arg_error mx_k_cortex_m_quantized_mul_out_check(mx_value *const *args) {
  /* one product of two offset int8 values, requantized */
  const int64_t prod = mx_cm_offset_max(-mx_arg_int(args, A(self_zero_point))) *
                       mx_cm_offset_max(-mx_arg_int(args, A(other_zero_point)));
  MX_REFUSE_IF(!mx_cm_requant_fits(prod, mx_arg_int(args, A(output_multiplier)), mx_arg_int(args, A(output_shift))),
               A(output_shift), MX_ERR_ARITH_RANGE);
  static const uint8_t operands[3] = {A(self), A(other), A(out)};
  return mx_cm_binary_check(args, operands);
}

mx_error mx_k_cortex_m_quantized_mul_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *a = mx_arg_tensor(args, A(self)), *b = mx_arg_tensor(args, A(other));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  mx_cm_binary plan;
  (void)mx_cm_binary_plan(a, b, out, &plan); /* checked at load */
  const int32_t a_zp = mx_cm_int(args, A(self_zero_point)), b_zp = mx_cm_int(args, A(other_zero_point));
  const int32_t out_zp = mx_cm_int(args, A(output_zero_point)), out_mult = mx_cm_int(args, A(output_multiplier));
  const int32_t out_shift = mx_cm_int(args, A(output_shift));
  const int8_t *pa = (const int8_t *)a->data, *pb = (const int8_t *)b->data;
  int8_t *po = (int8_t *)out->data;
  for (uint32_t r = 0; r < plan.rows; ++r) {
    uint32_t ao, bo;
    mx_cm_binary_row(&plan, r, &ao, &bo);
    MX_TRY(mx_cm_status(arm_elementwise_mul_s8(pa + ao, pb + bo, -a_zp, -b_zp, po + r * plan.row_len, out_zp, out_mult,
                                               out_shift, INT8_MIN, INT8_MAX, (int32_t)plan.row_len)));
  }
  return MX_OK;
}
