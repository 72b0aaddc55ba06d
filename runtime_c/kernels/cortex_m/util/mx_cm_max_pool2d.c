/* quantized_max_pool2d(_nhwc) via arm_max_pool_s8. */
#include "arm_nnfunctions.h"
#include "mx_cm_pool_args.h"
#include "mx_cm_max_pool2d.h"

/* Args: (input, kernel_size, stride, padding, dilation, ceil_mode, input_zero_point, output_zero_point,
 * activation_min, activation_max, out, ret). Dilation must be 1 and the zero points equal. */
mx_error mx_cm_max_pool2d(mx_value *const *args, uint32_t nargs, bool nhwc) {
  if (nargs != 12) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_cm_pool p;
  int32_t dil[2], in_zp, out_zp, act_min, act_max;
  bool ceil_mode = false;
  MX_TRY(mx_cm_read_window(args, &p));
  MX_TRY(mx_cm_pair(args[4], 1, MX_CM_POOL_MAX, dil));
  MX_TRY(mx_arg_bool(args[5], &ceil_mode));
  MX_TRY(mx_cm_int_in(args[6], -128, 127, &in_zp));
  MX_TRY(mx_cm_int_in(args[7], -128, 127, &out_zp));
  MX_TRY(mx_cm_int_in(args[8], -128, 127, &act_min));
  MX_TRY(mx_cm_int_in(args[9], act_min, 127, &act_max));
  MX_TRY(mx_arg_tensor(args[10], &p.out));
  MX_TRY(mx_arg_ret_is(args[11], p.out));
  if (dil[0] != 1 || dil[1] != 1) {
    return MX_ERR_UNSUPPORTED;
  }
  if (in_zp != out_zp) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  MX_TRY(mx_cm_pool_shapes(&p, nhwc, ceil_mode));
  if (p.out->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_context cm = {NULL, 0};
  const cmsis_nn_pool_params pp = {{p.stride[1], p.stride[0]}, {p.pad[1], p.pad[0]}, {act_min, act_max}};
  const cmsis_nn_dims filter_dims = {1, p.kernel[0], p.kernel[1], 1};
  return mx_cm_status(arm_max_pool_s8(&cm, &pp, &p.in_dims, (const int8_t *)p.in->data, &filter_dims, &p.out_dims,
                                      (int8_t *)p.out->data));
}
