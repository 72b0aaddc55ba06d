/* cortex_m::quantized_add.out via arm_elementwise_add_s8 (left shift 20, as ExecuTorch's lowering
 * computes the multipliers for). Args: (self, self_zero_point, self_multiplier, self_shift, other,
 * other_zero_point, other_multiplier, other_shift, output_zero_point, output_multiplier, output_shift,
 * activation_min, activation_max, out, ret). Operands: laid out like out, or one a channel row. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"
#include "util/mx_cm_binary.h"

#define MX_CM_ADD_LEFT_SHIFT 20

mx_error mx_k_cortex_m_quantized_add_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 15) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *a = NULL, *b = NULL, *out = NULL;
  int32_t a_zp, a_mult, a_shift, b_zp, b_mult, b_shift, out_zp, out_mult, out_shift, act_min, act_max;
  MX_TRY(mx_arg_tensor(args[0], &a));
  MX_TRY(mx_cm_int_in(args[1], -128, 127, &a_zp));
  MX_TRY(mx_cm_int32(args[2], &a_mult));
  MX_TRY(mx_cm_int_in(args[3], -31, 31, &a_shift));
  MX_TRY(mx_arg_tensor(args[4], &b));
  MX_TRY(mx_cm_int_in(args[5], -128, 127, &b_zp));
  MX_TRY(mx_cm_int32(args[6], &b_mult));
  MX_TRY(mx_cm_int_in(args[7], -31, 31, &b_shift));
  MX_TRY(mx_cm_int_in(args[8], -128, 127, &out_zp));
  MX_TRY(mx_cm_int32(args[9], &out_mult));
  MX_TRY(mx_cm_int_in(args[10], -31, 31, &out_shift));
  MX_TRY(mx_cm_int_in(args[11], -128, 127, &act_min));
  MX_TRY(mx_cm_int_in(args[12], act_min, 127, &act_max));
  MX_TRY(mx_arg_tensor(args[13], &out));
  MX_TRY(mx_arg_ret_is(args[14], out));
  mx_cm_binary plan;
  MX_TRY(mx_cm_binary_plan(a, b, out, &plan));
  const int8_t *pa = (const int8_t *)a->data, *pb = (const int8_t *)b->data;
  int8_t *po = (int8_t *)out->data;
  for (uint32_t r = 0; r < plan.rows; ++r) {
    MX_TRY(mx_cm_status(arm_elementwise_add_s8(pa + r * plan.a_step, pb + r * plan.b_step, -a_zp, a_mult, a_shift,
                                               -b_zp, b_mult, b_shift, MX_CM_ADD_LEFT_SHIFT, po + r * plan.row_len,
                                               out_zp, out_mult, out_shift, act_min, act_max,
                                               (int32_t)plan.row_len)));
  }
  return MX_OK;
}
