#include "mx_cm_conv_args.h"

#include "mx_cm_ranges.h"

int64_t mx_cm_window_out(int32_t size, int32_t kernel, int32_t stride, int32_t pad, int32_t dilation, bool ceil_mode) {
  /* The loader's ranges (sizes >= 0; kernel, stride and dilation in [1, MX_CM_PARAM_MAX], padding in
   * [0, MX_CM_PARAM_MAX]) keep every sum below 2^32, so the division is 32-bit (no libgcc __aeabi_ldivmod). */
  const uint32_t padded = (uint32_t)size + 2u * (uint32_t)pad;
  const uint64_t reach = (uint64_t)(uint32_t)dilation * (uint32_t)(kernel - 1) + 1u;
  if (reach > padded) {
    return 0;
  }
  const uint32_t span = padded - (uint32_t)reach;
  uint32_t out = (span + (ceil_mode ? (uint32_t)stride - 1u : 0u)) / (uint32_t)stride + 1u;
  if (ceil_mode && (out - 1u) * (uint32_t)stride >= (uint32_t)size + (uint32_t)pad) {
    --out; /* a last window that would start in the padding */
  }
  return out;
}

#define CONV(name) MX_ARG_cortex_m_quantized_conv2d_##name
#define DW(name) MX_ARG_cortex_m_quantized_depthwise_conv2d_##name
/* The depthwise schema is the convolution's with depth_multiplier inserted after dilation: the arguments
 * from input_offset on sit one further (dw = 1). */
#define IX(name) (CONV(name) + dw)

_Static_assert(CONV(input) == DW(input) && CONV(weight) == DW(weight) && CONV(bias) == DW(bias) &&
                   CONV(stride) == DW(stride) && CONV(padding) == DW(padding) && CONV(dilation) == DW(dilation),
               "convolution and depthwise convolution share their leading arguments");
_Static_assert(CONV(padding) == CONV(stride) + 1 && CONV(dilation) == CONV(stride) + 2, "the window's pairs in a row");
_Static_assert(DW(input_offset) == CONV(input_offset) + 1 && DW(output_offset) == CONV(output_offset) + 1 &&
                   DW(requantize_multipliers) == CONV(requantize_multipliers) + 1 &&
                   DW(requantize_shifts) == CONV(requantize_shifts) + 1 &&
                   DW(activation_min) == CONV(activation_min) + 1 && DW(activation_max) == CONV(activation_max) + 1 &&
                   DW(scratch) == CONV(scratch) + 1 && DW(out) == CONV(out) + 1,
               "depthwise convolution's trailing arguments sit one after the convolution's");
_Static_assert(MX_NARGS_cortex_m_quantized_conv2d == MX_NARGS_cortex_m_quantized_conv2d_nhwc &&
                   CONV(scratch) == MX_ARG_cortex_m_quantized_conv2d_nhwc_scratch &&
                   MX_NARGS_cortex_m_quantized_depthwise_conv2d == MX_NARGS_cortex_m_quantized_depthwise_conv2d_nhwc &&
                   DW(scratch) == MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_scratch,
               "each *_nhwc op has its twin's arguments");

void mx_cm_conv_read(mx_value *const *args, uint32_t dw, bool nhwc, mx_cm_conv *c) {
  c->in = mx_arg_tensor(args, CONV(input));
  c->w = mx_arg_tensor(args, CONV(weight));
  c->scratch = mx_arg_tensor(args, IX(scratch));
  c->out = mx_arg_tensor(args, IX(out));
  const mx_tensor *bias = mx_arg_opt_tensor(args, CONV(bias));
  c->bias_data = bias != NULL ? (int32_t *)bias->data : NULL;
  c->mult = (int32_t *)mx_arg_tensor(args, IX(requantize_multipliers))->data;
  c->shift = (int32_t *)mx_arg_tensor(args, IX(requantize_shifts))->data;
  c->in_dims = mx_cm_nhwc(c->in, nhwc);
  c->out_dims = mx_cm_nhwc(c->out, nhwc);
  mx_cm_pair(mx_arg_int_list(args, CONV(stride)), c->stride);
  mx_cm_pair(mx_arg_int_list(args, CONV(padding)), c->pad);
  mx_cm_pair(mx_arg_int_list(args, CONV(dilation)), c->dil);
  c->in_off = mx_cm_int(args, IX(input_offset));
  c->out_off = mx_cm_int(args, IX(output_offset));
  c->act_min = mx_cm_int(args, IX(activation_min));
  c->act_max = mx_cm_int(args, IX(activation_max));
  c->ch_mult = dw ? mx_cm_int(args, DW(depth_multiplier)) : 1;
  const int32_t *ws = c->w->sizes;
  c->filter = dw ? (cmsis_nn_dims){1, ws[1], ws[2], c->out_dims.c} : (cmsis_nn_dims){ws[0], ws[1], ws[2], ws[3]};
}

cmsis_nn_conv_params mx_cm_conv_params(const mx_cm_conv *c) {
  return (cmsis_nn_conv_params){c->in_off,
                                c->out_off,
                                {c->stride[1], c->stride[0]},
                                {c->pad[1], c->pad[0]},
                                {c->dil[1], c->dil[0]},
                                {c->act_min, c->act_max}};
}

cmsis_nn_dw_conv_params mx_cm_dw_conv_params(const mx_cm_conv *c) {
  return (cmsis_nn_dw_conv_params){c->in_off,
                                   c->out_off,
                                   c->ch_mult,
                                   {c->stride[1], c->stride[0]},
                                   {c->pad[1], c->pad[0]},
                                   {c->dil[1], c->dil[0]},
                                   {c->act_min, c->act_max}};
}

mx_arg_error mx_cm_conv_check(mx_value *const *args, uint32_t dw, bool nhwc, mx_cm_conv *c) {
  dw = dw != 0; /* 0 or 1 as the compiler sees it too: the argument positions below then need no range test */
  for (uint32_t i = CONV(stride); i <= CONV(dilation); ++i) {
    MX_CHECK(i, mx_cm_pair_check(mx_arg_int_list(args, i)));
  }
  const mx_tensor *w = mx_arg_tensor(args, CONV(weight)), *bias = mx_arg_opt_tensor(args, CONV(bias));
  MX_TRY(mx_cm_nhwc_arg(args, CONV(input), nhwc));
  MX_TRY(mx_cm_nhwc_arg(args, IX(out), nhwc));
  MX_TRY(mx_check_arg_tensor(args, CONV(weight), MX_DTYPE_I8));
  MX_REFUSE_IF(w->dim != 4, CONV(weight), MX_ERR_BAD_SHAPE);
  mx_cm_conv_read(args, dw, nhwc, c);
  MX_REFUSE_IF(c->act_max < c->act_min, IX(activation_max), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(c->in_dims.n != c->out_dims.n, IX(out), MX_ERR_BAD_SHAPE);
  const int32_t c_out = c->out_dims.c;
  MX_TRY(mx_cm_i32_vector(args, IX(requantize_multipliers), c_out));
  MX_TRY(mx_cm_i32_vector(args, IX(requantize_shifts), c_out));
  if (bias != NULL) {
    MX_TRY(mx_cm_i32_vector(args, CONV(bias), c_out));
  }
  /* each output sums K = KH * KW * (C_in / groups) products (KH * KW for depthwise) of an offset input and
   * a weight; taken from numel, which bounds it by 2^32 whatever the sizes */
  const uint32_t per_row = w->sizes[0] > 0 ? w->numel / (uint32_t)w->sizes[0] : 0;
  const int64_t k = dw && w->sizes[3] > 0 ? per_row / (uint32_t)w->sizes[3] : per_row;
  const int64_t terms = k * mx_cm_offset_max(c->in_off) * 128;
  const uint8_t named[3] = {CONV(bias), IX(requantize_multipliers), IX(requantize_shifts)};
  for (int32_t o = 0; o < c_out; ++o) {
    MX_REFUSE_IF(c->shift[o] < -31 || c->shift[o] > 31, IX(requantize_shifts), MX_ERR_BAD_ARG_VALUE);
    MX_TRY(mx_cm_acc_check(c->bias_data != NULL ? c->bias_data[o] : 0, terms, c->mult[o], c->shift[o], named));
  }
  const int32_t kh = w->sizes[1], kw = w->sizes[2];
  MX_REFUSE_IF(c->out_dims.h != mx_cm_window_out(c->in_dims.h, kh, c->stride[0], c->pad[0], c->dil[0], false) ||
                   c->out_dims.w != mx_cm_window_out(c->in_dims.w, kw, c->stride[1], c->pad[1], c->dil[1], false),
               IX(out), MX_ERR_BAD_SHAPE);
  return MX_OK;
}
