/* quantized_depthwise_conv2d(_nhwc) via mx_cm_dw_conv_s8 (mx_cm_conv_dispatch.h): CMSIS-NN's wrapper on the
 * host, the variant the wrapper would pick in a model's firmware Scratch must hold at least what that
 * variant asks for on this target. */
#include "mx_cm_conv_args.h"
#include "mx_cm_conv_dispatch.h"
#include "mx_cm_depthwise_conv2d.h"
#include "mx_cm_rows.h"

#define A(name) MX_ARG_cortex_m_quantized_depthwise_conv2d_##name

mx_arg_error mx_cm_depthwise_conv2d_check(mx_value *const *args, bool nhwc) {
  mx_cm_conv c;
  MX_TRY(mx_cm_conv_check(args, 1, nhwc, &c));
  const int32_t c_out = c.out_dims.c;
  MX_REFUSE_IF(c.w->sizes[0] != 1 || c.w->sizes[3] != c_out || (int64_t)c.in_dims.c * c.ch_mult != c_out, A(weight),
               MX_ERR_BAD_SHAPE);
  /* CMSIS-NN's MVE depthwise reads the bias per channel block: pass zeros */
  MX_REFUSE_IF(c.bias_data == NULL, A(bias), MX_ERR_BAD_ARG_VALUE);
  const cmsis_nn_dw_conv_params p = mx_cm_dw_conv_params(&c);
  MX_CHECK(A(scratch),
           mx_cm_scratch_check(c.scratch, mx_cm_dw_conv_s8_buffer_size(&p, &c.in_dims, &c.filter, &c.out_dims)));
  return MX_OK;
}

static mx_cm_rows dw_geometry(const mx_cm_conv *c) {
  return (mx_cm_rows){c->in_dims, c->out_dims, c->stride[0], c->pad[0], c->dil[0] * (c->filter.h - 1) + 1, 0, 0};
}

mx_error mx_cm_depthwise_conv2d(mx_value *const *args, bool nhwc) {
  mx_cm_conv c;
  mx_cm_conv_read(args, 1, nhwc, &c);
  if (c.out->numel == 0) {
    return MX_OK;
  }
  cmsis_nn_dw_conv_params p = mx_cm_dw_conv_params(&c);
  const cmsis_nn_context cm = mx_cm_scratch(c.scratch);
  const cmsis_nn_per_channel_quant_params q = {c.mult, c.shift};
  const cmsis_nn_dims bias_dims = {1, 1, 1, c.out_dims.c};
  mx_cm_rows r = dw_geometry(&c);
  const int8_t *in = (const int8_t *)c.in->data;
  int8_t *out = (int8_t *)c.out->data;
  for (int32_t i = 0, calls = mx_cm_rows_calls(&r, in, out); i < calls; i++) {
    mx_cm_rows_call k;
    mx_cm_rows_call_at(&r, in, out, i, &k);
    p.padding.h = k.pad;
    MX_TRY(mx_cm_status(mx_cm_dw_conv_s8(&cm, &p, &q, &k.in_dims, k.in, &c.filter, (const int8_t *)c.w->data,
                                         &bias_dims, c.bias_data, &k.out_dims, k.out)));
  }
  return MX_OK;
}

/* A group's call must pick the whole call's CMSIS-NN function (the firmware links only those; one batch of
 * several, or top padding past 1, would switch it) and so ask for no more scratch. */
static bool same_function(const void *op, const mx_cm_rows *r, int32_t pad, int32_t rows) {
  const mx_cm_conv *c = op;
  const cmsis_nn_dw_conv_params p = mx_cm_dw_conv_params(c);
  cmsis_nn_dw_conv_params row_p = p;
  row_p.padding.h = pad;
  const cmsis_nn_dims row_in = {1, rows, r->in.w, r->in.c}, row_out = {1, 1, r->out.w, r->out.c};
  return mx_cm_dw_conv_kind_of(&row_p, &row_in, &c->filter, &row_out) ==
         mx_cm_dw_conv_kind_of(&p, &c->in_dims, &c->filter, &c->out_dims);
}

static bool depthwise_overlap(mx_value *const *args, uint32_t arg, bool nhwc) {
  mx_cm_conv c;
  mx_cm_conv_read(args, 1, nhwc, &c);
  const mx_cm_rows r = dw_geometry(&c);
  return mx_cm_rows_overlap(&r, arg, c.in->data, c.out->data, same_function, &c);
}

/* (The out is read where the schema puts it.) */
bool mx_cm_depthwise_conv2d_overlap(mx_value *const *args, uint32_t arg, uint32_t out) {
  (void)out;
  return depthwise_overlap(args, arg, false);
}
bool mx_cm_depthwise_conv2d_nhwc_overlap(mx_value *const *args, uint32_t arg, uint32_t out) {
  (void)out;
  return depthwise_overlap(args, arg, true);
}
