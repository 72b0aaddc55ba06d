/* cortex_m::softmax.out via arm_softmax_s8. Args: (input, dim, input_zero_point, output_zero_point,
 * input_multiplier, input_shift, diff_min, out, ret). `dim` must be the innermost memory dim (CMSIS-NN
 * works on rows); the input zero point cancels out of a softmax; the output is fixed at scale 1/256 and
 * zero point -128 (CMSIS-NN's), so output_zero_point must be -128. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"

mx_error mx_k_cortex_m_softmax_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 9) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *out = NULL;
  int64_t dim = 0;
  int32_t in_zp, out_zp, mult, shift, diff_min;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_int(args[1], &dim));
  MX_TRY(mx_cm_int_in(args[2], -128, 127, &in_zp));
  MX_TRY(mx_cm_int_in(args[3], -128, 127, &out_zp));
  MX_TRY(mx_cm_int32(args[4], &mult));
  MX_TRY(mx_cm_int_in(args[5], -31, 31, &shift));
  MX_TRY(mx_cm_int_in(args[6], INT32_MIN, 0, &diff_min));
  MX_TRY(mx_arg_tensor(args[7], &out));
  MX_TRY(mx_arg_ret_is(args[8], out));
  MX_TRY(mx_tensor_check(in));
  MX_TRY(mx_tensor_check(out));
  if (in->dtype != MX_DTYPE_I8 || out->dtype != MX_DTYPE_I8) {
    return MX_ERR_BAD_DTYPE;
  }
  if (!mx_cm_same_memory(in, out)) {
    return MX_ERR_BAD_SHAPE;
  }
  uint32_t d = 0;
  MX_TRY(mx_wrap_dim(dim, in->dim, &d));
  if (out_zp != -128 || mult <= 0 || (in->dim > 0 && in->dim_order[in->dim - 1] != d)) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  const int32_t row = in->dim > 0 ? in->sizes[d] : 1;
  if (row == 0 || in->numel == 0) {
    return MX_OK;
  }
  arm_softmax_s8((const int8_t *)in->data, (int32_t)(in->numel / (uint32_t)row), row, mult, shift, diff_min,
                 (int8_t *)out->data);
  return MX_OK;
}
