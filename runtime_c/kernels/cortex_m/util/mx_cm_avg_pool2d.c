/* quantized_avg_pool2d(_nhwc) via arm_avgpool_s8. */
#include "arm_nnfunctions.h"
#include "mx_cm_pool_args.h"
#include "mx_cm_avg_pool2d.h"

/* Args: (input, kernel_size, stride, padding, ceil_mode, zero_point, multiplier, shift, scratch, out, ret).
 * Input and output share their quantization, so zero_point/multiplier/shift do not enter the arithmetic. */
mx_error mx_cm_avg_pool2d(mx_value *const *args, uint32_t nargs, bool nhwc) {
  if (nargs != 11) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_cm_pool p;
  bool ceil_mode = false;
  int32_t zp, mult, shift;
  mx_tensor *scratch = NULL;
  MX_TRY(mx_cm_read_window(args, &p));
  MX_TRY(mx_arg_bool(args[4], &ceil_mode));
  MX_TRY(mx_cm_int_in(args[5], -128, 127, &zp));
  MX_TRY(mx_cm_int32(args[6], &mult));
  MX_TRY(mx_cm_int_in(args[7], -31, 31, &shift));
  MX_TRY(mx_arg_tensor(args[8], &scratch));
  MX_TRY(mx_arg_tensor(args[9], &p.out));
  MX_TRY(mx_arg_ret_is(args[10], p.out));
  MX_TRY(mx_cm_pool_shapes(&p, nhwc, ceil_mode));
  cmsis_nn_context cm;
  MX_TRY(mx_cm_scratch(scratch, arm_avgpool_s8_get_buffer_size(p.out_dims.w, p.in_dims.c), &cm));
  if (p.out->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_pool_params pp = {{p.stride[1], p.stride[0]}, {p.pad[1], p.pad[0]}, {INT8_MIN, INT8_MAX}};
  const cmsis_nn_dims filter_dims = {1, p.kernel[0], p.kernel[1], 1};
  return mx_cm_status(arm_avgpool_s8(&cm, &pp, &p.in_dims, (const int8_t *)p.in->data, &filter_dims, &p.out_dims,
                                     (int8_t *)p.out->data));
}
