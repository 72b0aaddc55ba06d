/* quantized_conv2d(_nhwc) via mx_cm_conv_s8 (mx_cm_conv_dispatch.h): CMSIS-NN's wrapper on the
 * host, the variant the wrapper would pick in a model's firmware. Scratch must hold at least what that
 * variant asks for on this target. Weight: [C_out, KH, KW, C_in / groups]. */
#include "mx_cm_conv_args.h"
#include "mx_cm_conv_dispatch.h"
#include "mx_cm_conv2d.h"

#define A(name) MX_ARG_cortex_m_quantized_conv2d_##name

static cmsis_nn_conv_params params(const mx_cm_conv *c) {
  return (cmsis_nn_conv_params){c->in_off, c->out_off, {c->stride[1], c->stride[0]}, {c->pad[1], c->pad[0]},
                                {c->dil[1], c->dil[0]}, {c->act_min, c->act_max}};
}

static cmsis_nn_dims filter_dims(const mx_cm_conv *c) {
  return (cmsis_nn_dims){c->w->sizes[0], c->w->sizes[1], c->w->sizes[2], c->w->sizes[3]};
}

mx_arg_error mx_cm_conv2d_check(mx_value *const *args, bool nhwc) {
  mx_cm_conv c;
  MX_TRY(mx_cm_conv_check(args, 0, nhwc, &c));
  const int32_t c_out = c.w->sizes[0], kc = c.w->sizes[3];
  MX_REFUSE_IF(c_out != c.out_dims.c || kc < 1 || c.in_dims.c % kc != 0 || c_out % (c.in_dims.c / kc) != 0,
               A(weight), MX_ERR_BAD_SHAPE);
  /* CMSIS-NN's grouped convolution offsets the bias per group: pass zeros */
  MX_REFUSE_IF(c.bias_data == NULL && kc != c.in_dims.c, A(bias), MX_ERR_BAD_ARG_VALUE);
  const cmsis_nn_conv_params p = params(&c);
  const cmsis_nn_dims f = filter_dims(&c);
  MX_CHECK(A(scratch), mx_cm_scratch_check(c.scratch, mx_cm_conv_s8_buffer_size(&p, &c.in_dims, &f, &c.out_dims)));
  return MX_OK;
}

mx_error mx_cm_conv2d(mx_value *const *args, bool nhwc) {
  mx_cm_conv c;
  mx_cm_conv_read(args, 0, nhwc, &c);
  if (c.out->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_conv_params p = params(&c);
  const cmsis_nn_dims f = filter_dims(&c), bias_dims = {1, 1, 1, f.n};
  const cmsis_nn_context cm = mx_cm_scratch(c.scratch);
  const cmsis_nn_per_channel_quant_params q = {c.mult, c.shift};
  return mx_cm_status(mx_cm_conv_s8(&cm, &p, &q, &c.in_dims, (const int8_t *)c.in->data, &f, (const int8_t *)c.w->data,
                                    &bias_dims, c.bias_data, &c.out_dims, (int8_t *)c.out->data));
}
