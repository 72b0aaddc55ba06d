/* quantized_conv2d(_nhwc) via mx_cm_conv_s8 (mx_cm_conv_dispatch.h): CMSIS-NN's wrapper on the host, the
 * variant the wrapper would pick in a model's firmware Scratch must hold at least what that
 * variant asks for on this target. */
#include "mx_cm_conv_args.h"
#include "mx_cm_conv_dispatch.h"
#include "mx_cm_conv2d.h"

#define A(name) MX_ARG_cortex_m_quantized_conv2d_##name

mx_arg_error mx_cm_conv2d_check(mx_value *const *args, bool nhwc) {
  mx_cm_conv c;
  MX_TRY(mx_cm_conv_check(args, 0, nhwc, &c));
  const int32_t c_out = c.out_dims.c, kc = c.filter.c, c_in = c.in_dims.c;
  MX_REFUSE_IF(c.filter.n != c_out || kc < 1 || c_in % kc != 0 || c_out % (c_in / kc) != 0, A(weight),
               MX_ERR_BAD_SHAPE);
  /* CMSIS-NN's grouped convolution offsets the bias per group: pass zeros */
  MX_REFUSE_IF(c.bias_data == NULL && kc != c_in, A(bias), MX_ERR_BAD_ARG_VALUE);
  const cmsis_nn_conv_params p = mx_cm_conv_params(&c);
  MX_CHECK(A(scratch),
           mx_cm_scratch_check(c.scratch, mx_cm_conv_s8_buffer_size(&p, &c.in_dims, &c.filter, &c.out_dims)));
  return MX_OK;
}

mx_error mx_cm_conv2d(mx_value *const *args, bool nhwc) {
  mx_cm_conv c;
  mx_cm_conv_read(args, 0, nhwc, &c);
  if (c.out->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_conv_params p = mx_cm_conv_params(&c);
  const cmsis_nn_dims bias_dims = {1, 1, 1, c.filter.n};
  const cmsis_nn_context cm = mx_cm_scratch(c.scratch);
  const cmsis_nn_per_channel_quant_params q = {c.mult, c.shift};
  return mx_cm_status(mx_cm_conv_s8(&cm, &p, &q, &c.in_dims, (const int8_t *)c.in->data, &c.filter,
                                    (const int8_t *)c.w->data, &bias_dims, c.bias_data, &c.out_dims,
                                    (int8_t *)c.out->data));
}
