/* cortex_m::quantized_linear.out via arm_fully_connected_s8 (mx_cm_fc_s8: firmware links the requantization its
 * model's layers use, mx_cm_conv_dispatch.h). Input [..., C_in] or [N, C_in, 1, 1], weights
 * [C_out, C_in], bias? and kernel_sum? [C_out] int32, requantize_multipliers and requantize_shifts int[1 or
 * C_out], out [..., C_out]. Note activation_max comes before activation_min in the schema.
 *
 * kernel_sum[o] = input_offset * sum_i (w[o, i] + filter_offset) + bias[o] is ahead-of-time data. Where
 * CMSIS-NN reads kernel sums from the context (MVE: arm_fully_connected_s8_get_buffer_size > 0) it is
 * passed as ctx->buf and required; elsewhere, when present, it stands in for the bias with input_offset 0,
 * which is the same integer sum (sum (x + a)(w + b) + c = sum x (w + b) + kernel_sum). So one program
 * runs on every target when the exporter always provides kernel_sum. Per-channel multipliers go to
 * arm_fully_connected_per_channel_s8, which wants int32 arrays: the int[] lists (range-checked at load) are
 * converted on the stack MX_CM_FC_CHUNK channels at a time, so a layer of up to that many channels is one
 * call for all batches. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"
#include "util/mx_cm_conv_dispatch.h"
#include "util/mx_cm_ranges.h"

#define MX_CM_FC_MAX_CHANNELS 65536
/* 128 bytes of stack for the int32 multipliers and shifts. At 128 channels (1 KiB) this frame was int8 KWS's deepest
 * stack path; a wider layer makes one call per 16 channels and batch instead, each over the whole input row. */
#define MX_CM_FC_CHUNK 16
#define A(name) MX_ARG_cortex_m_quantized_linear_##name

/* A pooled [N, C, 1, 1] input into a [N, C_out] out is read as [N, C] rows: with H == W == 1 every dim
 * order holds those bytes, so the exporter needs no view_copy before the linear layer. */
static uint32_t channel_dim(const mx_tensor *in, const mx_tensor *out) {
  const bool flat = in->dim == 4 && out->dim == 2 && in->sizes[2] == 1 && in->sizes[3] == 1;
  return flat ? 1u : in->dim - 1u;
}

mx_arg_error mx_k_cortex_m_quantized_linear_out_check(mx_value *const *args) {
  MX_REFUSE_IF(mx_arg_int(args, A(activation_min)) > mx_arg_int(args, A(activation_max)), A(activation_min),
               MX_ERR_BAD_ARG_VALUE);
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *w = mx_arg_tensor(args, A(weights));
  const mx_tensor *bias = mx_arg_opt_tensor(args, A(bias)), *ksum = mx_arg_opt_tensor(args, A(kernel_sum));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  MX_TRY(mx_check_arg_tensor(args, A(input), MX_DTYPE_I8));
  MX_TRY(mx_check_arg_tensor(args, A(weights), MX_DTYPE_I8));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_I8));
  MX_REFUSE_IF(in->dim < 1, A(input), MX_ERR_BAD_SHAPE);
  const uint32_t c_dim = channel_dim(in, out);
  MX_REFUSE_IF(c_dim + 1u == in->dim && out->dim != in->dim, A(out), MX_ERR_BAD_SHAPE); /* not flattened */
  MX_REFUSE_IF(w->dim != 2 || w->sizes[1] != in->sizes[c_dim] || w->sizes[0] < 1 || w->sizes[0] > MX_CM_FC_MAX_CHANNELS,
               A(weights), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(w->sizes[0] != out->sizes[out->dim - 1], A(out), MX_ERR_BAD_SHAPE);
  for (uint32_t d = 0; d + 1 < out->dim; ++d) {
    MX_REFUSE_IF(in->sizes[d] != out->sizes[d], A(out), MX_ERR_BAD_SHAPE);
  }
  const int32_t c_out = w->sizes[0];
  /* one value for all channels or one per channel (the loader checked their ranges) */
  const uint32_t n_mult = mx_arg_int_list(args, A(requantize_multipliers))->len;
  MX_REFUSE_IF(n_mult != 1 && n_mult != (uint32_t)c_out, A(requantize_multipliers), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(mx_arg_int_list(args, A(requantize_shifts))->len != n_mult, A(requantize_shifts), MX_ERR_BAD_ARG_VALUE);
  if (bias != NULL) {
    MX_TRY(mx_cm_i32_vector(args, A(bias), c_out));
  }
  if (ksum != NULL) {
    MX_TRY(mx_cm_i32_vector(args, A(kernel_sum), c_out));
  }
  /* kernel_sum, when given, seeds the sum on every target in place of bias, with the input offset folded in */
  const int32_t *seed = ksum != NULL ? (const int32_t *)ksum->data : bias != NULL ? (const int32_t *)bias->data : NULL;
  const int64_t x_max = ksum != NULL ? 128 : mx_cm_offset_max(mx_arg_int(args, A(input_offset)));
  const int64_t terms = in->sizes[c_dim] * x_max * mx_cm_offset_max(mx_arg_int(args, A(filter_offset)));
  const uint8_t named[3] = {ksum != NULL ? A(kernel_sum) : A(bias), A(requantize_multipliers), A(requantize_shifts)};
  const int64_t *mults = mx_arg_int_list(args, A(requantize_multipliers))->items;
  const int64_t *shifts = mx_arg_int_list(args, A(requantize_shifts))->items;
  for (int32_t o = 0; o < c_out; ++o) {
    const uint32_t q = n_mult == 1 ? 0 : (uint32_t)o;
    MX_TRY(mx_cm_acc_check(seed != NULL ? seed[o] : 0, terms, (int32_t)mults[q], (int32_t)shifts[q], named));
  }
  const cmsis_nn_dims filter_dims = {in->sizes[c_dim], 1, 1, c_out};
  const int32_t need = arm_fully_connected_s8_get_buffer_size(&filter_dims);
  /* a target that reads kernel sums from the context needs kernel_sum */
  MX_REFUSE_IF(need > 0 && (ksum == NULL || (int32_t)mx_tensor_nbytes(ksum) < need), A(kernel_sum),
               MX_ERR_BAD_ARG_VALUE);
  return MX_OK;
}

mx_error mx_k_cortex_m_quantized_linear_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *w = mx_arg_tensor(args, A(weights));
  const mx_tensor *bias = mx_arg_opt_tensor(args, A(bias)), *ksum = mx_arg_opt_tensor(args, A(kernel_sum));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  const int32_t c_in = in->sizes[channel_dim(in, out)], c_out = w->sizes[0];
  const int32_t batches = c_in > 0 ? (int32_t)(in->numel / (uint32_t)c_in) : 0;
  const mx_int_list *mults = mx_arg_int_list(args, A(requantize_multipliers));
  const int64_t *shifts = mx_arg_int_list(args, A(requantize_shifts))->items;
  int32_t *bias_data = bias != NULL ? (int32_t *)bias->data : NULL;
  int32_t *ksum_data = ksum != NULL ? (int32_t *)ksum->data : NULL;

  const cmsis_nn_dims filter_dims = {c_in, 1, 1, c_out};
  cmsis_nn_context cm = {NULL, 0};
  cmsis_nn_fc_params p = {mx_cm_int(args, A(input_offset)),
                          mx_cm_int(args, A(filter_offset)),
                          mx_cm_int(args, A(output_offset)),
                          {mx_cm_int(args, A(activation_min)), mx_cm_int(args, A(activation_max))}};
  if (arm_fully_connected_s8_get_buffer_size(&filter_dims) > 0) {
    cm = (cmsis_nn_context){ksum_data, (int32_t)mx_tensor_nbytes(ksum)};
  } else if (ksum_data != NULL) {
    bias_data = ksum_data;
    p.input_offset = 0;
  }
  if (batches == 0) {
    return MX_OK;
  }

  const int8_t *x = (const int8_t *)in->data, *wd = (const int8_t *)w->data;
  int8_t *y = (int8_t *)out->data;
  /* One call for all channels and batches where it can (one multiplier, or at most MX_CM_FC_CHUNK channels); a
   * wider per-channel layer runs a chunk of channels per call and batch, since the kernel's output stride is its
   * depth. */
  const bool per_tensor = mults->len == 1;
  int32_t m32[MX_CM_FC_CHUNK], s32[MX_CM_FC_CHUNK];
  const int32_t per = per_tensor || c_out < MX_CM_FC_CHUNK ? c_out : MX_CM_FC_CHUNK, rows = per == c_out ? batches : 1;
  const cmsis_nn_per_tensor_quant_params qt = {(int32_t)mults->items[0], (int32_t)shifts[0]};
  const cmsis_nn_per_channel_quant_params q = {m32, s32};
  for (int32_t o = 0; o < c_out; o += per) {
    const int32_t n = c_out - o < per ? c_out - o : per;
    for (int32_t i = 0; !per_tensor && i < n; ++i) {
      m32[i] = (int32_t)mults->items[o + i];
      s32[i] = (int32_t)shifts[o + i];
    }
    const cmsis_nn_dims in_dims = {rows, 1, 1, c_in}, row_filter = {c_in, 1, 1, n}, row_bias = {1, 1, 1, n};
    const cmsis_nn_dims out_dims = {rows, 1, 1, n};
    const cmsis_nn_context row_ctx = cm.buf != NULL ? (cmsis_nn_context){ksum_data + o, 4 * n} : cm;
    const int32_t *row_b = bias_data != NULL ? bias_data + o : NULL;
    for (int32_t b = 0; b < batches; b += rows) {
      const int8_t *xb = x + (size_t)b * (size_t)c_in, *wb = wd + (size_t)o * (size_t)c_in;
      int8_t *yb = y + (size_t)b * (size_t)c_out + (size_t)o;
      MX_TRY(mx_cm_status(
          per_tensor ? mx_cm_fc_s8(&row_ctx, &p, &qt, &in_dims, xb, &row_filter, wb, &row_bias, row_b, &out_dims, yb)
                     : mx_cm_fc_per_channel_s8(&row_ctx, &p, &q, &in_dims, xb, &row_filter, wb, &row_bias, row_b,
                                               &out_dims, yb)));
    }
  }
  return MX_OK;
}
