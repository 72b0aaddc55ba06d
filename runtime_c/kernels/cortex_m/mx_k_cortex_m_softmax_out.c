/* cortex_m::softmax.out via arm_softmax_s8. `dim` must be the innermost memory dim (CMSIS-NN works on
 * rows); the input zero point cancels out of a softmax; the output is fixed at scale 1/256 and zero point
 * -128 (CMSIS-NN's), so output_zero_point must be -128. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"
#include "util/mx_cm_ranges.h"

#define A(name) MX_ARG_cortex_m_softmax_##name

mx_arg_error mx_k_cortex_m_softmax_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  MX_REFUSE_IF(in->dtype != MX_DTYPE_I8, A(input), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(out->dtype != MX_DTYPE_I8, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(!mx_cm_same_memory(in, out), A(out), MX_ERR_BAD_SHAPE);
  uint32_t d = 0;
  MX_CHECK(A(dim), mx_wrap_dim(mx_arg_int(args, A(dim)), in->dim, &d));
  MX_REFUSE_IF(in->dim > 0 && in->dim_order[in->dim - 1] != d, A(dim), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(mx_arg_int(args, A(output_zero_point)) != -128, A(output_zero_point), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(mx_arg_int(args, A(input_multiplier)) <= 0, A(input_multiplier), MX_ERR_ARITH_RANGE);
  /* the row's Q12.19 sum of exps, each up to 2^19, stays in int32 */
  MX_REFUSE_IF(in->dim > 0 && in->sizes[d] > MX_CM_SOFTMAX_MAX_ROW, A(input), MX_ERR_ARITH_RANGE);
  return mx_cm_softmax_scaling_check(args, A(input_shift), A(diff_min));
}

mx_error mx_k_cortex_m_softmax_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  const int32_t row = in->dim > 0 ? in->sizes[mx_wrapped_dim(mx_arg_int(args, A(dim)), in->dim)] : 1;
  if (row == 0 || in->numel == 0) {
    return MX_OK;
  }
  arm_softmax_s8((const int8_t *)in->data, (int32_t)(in->numel / (uint32_t)row), row,
                 mx_cm_int(args, A(input_multiplier)), mx_cm_int(args, A(input_shift)), mx_cm_int(args, A(diff_min)),
                 (int8_t *)out->data);
  return MX_OK;
}
