/* quantized_conv2d(_nhwc) via mx_cm_conv_s8 (mx_cm_conv_dispatch.h): CMSIS-NN's wrapper on the
 * host, the variant the wrapper would pick in a model's firmware. Scratch must hold at least what that
 * variant asks for on this target. */
#include "mx_cm_conv_args.h"
#include "mx_cm_conv_dispatch.h"
#include "mx_cm_conv2d.h"

/* Args: (input, weight [C_out, KH, KW, C_in / groups], bias?, stride, padding, dilation, input_offset,
 * output_offset, requantize_multipliers, requantize_shifts, activation_min, activation_max, scratch, out, ret) */
mx_error mx_cm_conv2d(mx_value *const *args, uint32_t nargs, bool nhwc) {
  if (nargs != 15) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_cm_conv c;
  MX_TRY(mx_cm_read_conv(args, 0, nhwc, &c));
  const int32_t c_out = c.w->sizes[0], kc = c.w->sizes[3];
  if (c_out != c.out_dims.c || kc < 1 || c.in_dims.c % kc != 0 || c_out % (c.in_dims.c / kc) != 0) {
    return MX_ERR_BAD_SHAPE;
  }
  if (c.bias_data == NULL && kc != c.in_dims.c) {
    return MX_ERR_BAD_ARG_VALUE; /* CMSIS-NN's grouped convolution offsets the bias per group: pass zeros */
  }
  const cmsis_nn_conv_params p = {c.in_off, c.out_off, {c.stride[1], c.stride[0]}, {c.pad[1], c.pad[0]},
                                  {c.dil[1], c.dil[0]}, {c.act_min, c.act_max}};
  const cmsis_nn_dims filter_dims = {c_out, c.w->sizes[1], c.w->sizes[2], kc};
  const cmsis_nn_dims bias_dims = {1, 1, 1, c_out};
  cmsis_nn_context cm;
  MX_TRY(mx_cm_scratch(c.scratch, mx_cm_conv_s8_buffer_size(&p, &c.in_dims, &filter_dims, &c.out_dims),
                       &cm));
  if (c.out->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_per_channel_quant_params q = {c.mult, c.shift};
  return mx_cm_status(mx_cm_conv_s8(&cm, &p, &q, &c.in_dims, (const int8_t *)c.in->data, &filter_dims,
                                              (const int8_t *)c.w->data, &bias_dims, c.bias_data, &c.out_dims,
                                              (int8_t *)c.out->data));
}
