/* cortex_m::quantized_transpose_conv2d.out: activations [N, C, H, W] in channels-last dim order, weight
 * [C_out, KH, KW, C_in] (torch's [C_in, C_out, KH, KW] permuted), per-channel requantization; one call of
 * arm_transpose_conv_s8. Arm's kernel ignores dilation and buffers only (in - 1) * stride + MAX(kernel,
 * stride) full-output rows and columns, so the check holds both libraries to that: dilation 1, and the
 * padding plus the output inside those rows. output_scratch is Arm's wrapper's (reverse convolution), which
 * this kernel does not call: any size. */
#include "util/mx_cm_args.h"
#include "util/mx_cm_conv_args.h"
#include "util/mx_cm_ranges.h"

#define A(name) MX_ARG_cortex_m_quantized_transpose_conv2d_##name

typedef struct {
  mx_tensor *in, *w, *scratch, *out;
  const int32_t *bias, *mult, *shift;
  cmsis_nn_dims in_dims, filter, out_dims;
  cmsis_nn_transpose_conv_params p;
} tconv;

static void read_args(mx_value *const *args, tconv *t) {
  int32_t stride[2], pad[2], out_pad[2], dil[2];
  t->in = mx_arg_tensor(args, A(input));
  t->w = mx_arg_tensor(args, A(weight));
  t->scratch = mx_arg_tensor(args, A(scratch));
  t->out = mx_arg_tensor(args, A(out));
  const mx_tensor *bias = mx_arg_opt_tensor(args, A(bias));
  t->bias = bias != NULL ? (const int32_t *)bias->data : NULL;
  t->mult = (const int32_t *)mx_arg_tensor(args, A(requantize_multipliers))->data;
  t->shift = (const int32_t *)mx_arg_tensor(args, A(requantize_shifts))->data;
  t->in_dims = mx_cm_nhwc(t->in, false);
  t->out_dims = mx_cm_nhwc(t->out, false);
  const int32_t *ws = t->w->sizes;
  t->filter = (cmsis_nn_dims){ws[0], ws[1], ws[2], ws[3]};
  mx_cm_pair(mx_arg_int_list(args, A(stride)), stride);
  mx_cm_pair(mx_arg_int_list(args, A(padding)), pad);
  mx_cm_pair(mx_arg_int_list(args, A(output_padding)), out_pad);
  mx_cm_pair(mx_arg_int_list(args, A(dilation)), dil);
  t->p = (cmsis_nn_transpose_conv_params){mx_cm_int(args, A(input_offset)),
                                          mx_cm_int(args, A(output_offset)),
                                          {stride[1], stride[0]},
                                          {pad[1], pad[0]},
                                          {out_pad[1], out_pad[0]},
                                          {dil[1], dil[0]},
                                          {mx_cm_int(args, A(activation_min)), mx_cm_int(args, A(activation_max))}};
}

/* torch's output length along one axis, and whether Arm's buffered rows cover padding plus it. */
static bool axis_ok(int32_t in, int32_t out, int32_t kernel, int32_t stride, int32_t pad, int32_t out_pad) {
  const int64_t torch_out = ((int64_t)in - 1) * stride - 2 * (int64_t)pad + kernel + out_pad;
  const int64_t buffered = ((int64_t)in - 1) * stride + (kernel > stride ? kernel : stride);
  return out_pad < stride && out == torch_out && (int64_t)pad + out <= buffered;
}

mx_arg_error mx_k_cortex_m_quantized_transpose_conv2d_out_check(mx_value *const *args) {
  for (uint32_t i = A(stride); i <= A(dilation); ++i) {
    MX_CHECK(i, mx_cm_pair_check(mx_arg_int_list(args, i)));
  }
  MX_TRY(mx_cm_nhwc_arg(args, A(input), false));
  MX_TRY(mx_cm_nhwc_arg(args, A(out), false));
  MX_TRY(mx_check_arg_tensor(args, A(weight), MX_DTYPE_I8));
  MX_REFUSE_IF(mx_arg_tensor(args, A(weight))->dim != 4, A(weight), MX_ERR_BAD_SHAPE);
  tconv t;
  read_args(args, &t);
  const cmsis_nn_transpose_conv_params *p = &t.p;
  MX_REFUSE_IF(p->activation.max < p->activation.min, A(activation_max), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(p->dilation.h != 1 || p->dilation.w != 1, A(dilation), MX_ERR_BAD_ARG_VALUE);
  const int32_t c_out = t.out_dims.c;
  MX_REFUSE_IF(t.filter.n != c_out || t.filter.c != t.in_dims.c, A(weight), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(t.in_dims.n != t.out_dims.n, A(out), MX_ERR_BAD_SHAPE);
  MX_TRY(mx_cm_i32_vector(args, A(requantize_multipliers), c_out));
  MX_TRY(mx_cm_i32_vector(args, A(requantize_shifts), c_out));
  if (t.bias != NULL) {
    MX_TRY(mx_cm_i32_vector(args, A(bias), c_out));
  }
  /* an output gathers at most KH * KW * C_in products (every tap when the stride is 1) */
  const uint32_t per_row = t.filter.n > 0 ? t.w->numel / (uint32_t)t.filter.n : 0;
  const int64_t terms = (int64_t)per_row * mx_cm_offset_max(t.p.input_offset) * 128;
  static const uint8_t acc_args[3] = {A(bias), A(requantize_multipliers), A(requantize_shifts)};
  for (int32_t o = 0; o < c_out; ++o) {
    MX_REFUSE_IF(t.shift[o] < -31 || t.shift[o] > 31, A(requantize_shifts), MX_ERR_BAD_ARG_VALUE);
    MX_TRY(mx_cm_acc_check(t.bias != NULL ? t.bias[o] : 0, terms, t.mult[o], t.shift[o], acc_args));
  }
  MX_REFUSE_IF(p->padding_offsets.h >= p->stride.h || p->padding_offsets.w >= p->stride.w, A(output_padding),
               MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(!axis_ok(t.in_dims.h, t.out_dims.h, t.filter.h, p->stride.h, p->padding.h, p->padding_offsets.h) ||
                   !axis_ok(t.in_dims.w, t.out_dims.w, t.filter.w, p->stride.w, p->padding.w, p->padding_offsets.w),
               A(out), MX_ERR_BAD_SHAPE);
  MX_CHECK(A(scratch), mx_cm_scratch_check(
                           t.scratch, arm_transpose_conv_s8_get_buffer_size(p, &t.in_dims, &t.filter, &t.out_dims)));
  return MX_OK;
}

mx_error mx_k_cortex_m_quantized_transpose_conv2d_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  tconv t;
  read_args(args, &t);
  if (t.out->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_dims bias_dims = {1, 1, 1, t.out_dims.c};
  const cmsis_nn_context cm = mx_cm_scratch(t.scratch);
  const cmsis_nn_context out_cm = mx_cm_scratch(mx_arg_tensor(args, A(output_scratch)));
  const cmsis_nn_per_channel_quant_params q = {(int32_t *)t.mult, (int32_t *)t.shift};
  return mx_cm_status(arm_transpose_conv_s8(&cm, &out_cm, &t.p, &q, &t.in_dims, (const int8_t *)t.in->data, &t.filter,
                                            (const int8_t *)t.w->data, &bias_dims, t.bias, &t.out_dims,
                                            (int8_t *)t.out->data));
}
