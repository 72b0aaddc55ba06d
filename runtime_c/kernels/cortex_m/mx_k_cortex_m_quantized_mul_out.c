/* cortex_m::quantized_mul.out via arm_elementwise_mul_s8, clamped to the int8 range. Args: (self,
 * self_zero_point, other, other_zero_point, output_zero_point, output_multiplier, output_shift, out, ret).
 * Operands: laid out like out, or one a channel row. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"
#include "util/mx_cm_binary.h"

mx_error mx_k_cortex_m_quantized_mul_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 9) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *a = NULL, *b = NULL, *out = NULL;
  int32_t a_zp, b_zp, out_zp, out_mult, out_shift;
  MX_TRY(mx_arg_tensor(args[0], &a));
  MX_TRY(mx_cm_int_in(args[1], -128, 127, &a_zp));
  MX_TRY(mx_arg_tensor(args[2], &b));
  MX_TRY(mx_cm_int_in(args[3], -128, 127, &b_zp));
  MX_TRY(mx_cm_int_in(args[4], -128, 127, &out_zp));
  MX_TRY(mx_cm_int32(args[5], &out_mult));
  MX_TRY(mx_cm_int_in(args[6], -31, 31, &out_shift));
  MX_TRY(mx_arg_tensor(args[7], &out));
  MX_TRY(mx_arg_ret_is(args[8], out));
  mx_cm_binary plan;
  MX_TRY(mx_cm_binary_plan(a, b, out, &plan));
  const int8_t *pa = (const int8_t *)a->data, *pb = (const int8_t *)b->data;
  int8_t *po = (int8_t *)out->data;
  for (uint32_t r = 0; r < plan.rows; ++r) {
    MX_TRY(mx_cm_status(arm_elementwise_mul_s8(pa + r * plan.a_step, pb + r * plan.b_step, -a_zp, -b_zp,
                                               po + r * plan.row_len, out_zp, out_mult, out_shift, INT8_MIN,
                                               INT8_MAX, (int32_t)plan.row_len)));
  }
  return MX_OK;
}
