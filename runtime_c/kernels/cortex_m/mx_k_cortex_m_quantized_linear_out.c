/* cortex_m::quantized_linear.out via arm_fully_connected_s8. Args: (input [..., C_in] or [N, C_in, 1, 1],
 * weights [C_out, C_in], bias? [C_out] int32, kernel_sum? [C_out] int32, input_offset, filter_offset,
 * output_offset, requantize_multipliers int[1 or C_out], requantize_shifts int[1 or C_out],
 * activation_max, activation_min, out [..., C_out], ret). Note max comes before min in the schema.
 *
 * kernel_sum[o] = input_offset * sum_i (w[o, i] + filter_offset) + bias[o] is ahead-of-time data. Where
 * CMSIS-NN reads kernel sums from the context (MVE: arm_fully_connected_s8_get_buffer_size > 0) it is
 * passed as ctx->buf and required; elsewhere, when present, it stands in for the bias with input_offset 0,
 * which is the same integer sum (sum (x + a)(w + b) + c = sum x (w + b) + kernel_sum). So one program
 * runs on every target when the exporter always provides kernel_sum. Per-channel multipliers go to
 * arm_fully_connected_per_channel_s8, which wants int32 arrays: the int[] lists are converted on the stack
 * MX_CM_FC_CHUNK channels at a time, so a layer of up to that many channels is one call for all batches. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"

#define MX_CM_FC_MAX_CHANNELS 65536
#define MX_CM_FC_CHUNK 128 /* 1 KiB of stack for the int32 multipliers and shifts */

static mx_error per_channel_list(const mx_value *v, uint32_t c_out, const int64_t **items, uint32_t *len,
                                 int64_t lo, int64_t hi) {
  MX_TRY(mx_arg_int_list(v, items, len));
  if (*len != 1 && *len != c_out) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  /* Per-channel lists are range-checked as they are converted to int32, one pass instead of two. */
  for (uint32_t i = 0; *len == 1 && i < *len; ++i) {
    if ((*items)[i] < lo || (*items)[i] > hi) {
      return MX_ERR_BAD_ARG_VALUE;
    }
  }
  return MX_OK;
}

mx_error mx_k_cortex_m_quantized_linear_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 13) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *w = NULL, *bias = NULL, *ksum = NULL, *out = NULL;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_tensor(args[1], &w));
  MX_TRY(mx_arg_opt_tensor(args[2], &bias));
  MX_TRY(mx_arg_opt_tensor(args[3], &ksum));
  /* input_offset, filter_offset, output_offset, activation_max, activation_min (<= activation_max) */
  static const struct { uint8_t arg; int16_t lo, hi; } ints[5] = {
      {4, -127, 128}, {5, -127, 128}, {6, -128, 127}, {9, -128, 127}, {10, -128, 127}};
  int32_t v[5];
  for (uint32_t i = 0; i < 5; ++i) {
    MX_TRY(mx_cm_int_in(args[ints[i].arg], ints[i].lo, ints[i].hi, &v[i]));
  }
  const int32_t in_off = v[0], f_off = v[1], out_off = v[2], act_max = v[3], act_min = v[4];
  if (act_min > act_max) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  MX_TRY(mx_arg_tensor(args[11], &out));
  MX_TRY(mx_arg_ret_is(args[12], out));
  MX_TRY(mx_check_tensor(in, MX_DTYPE_I8));
  MX_TRY(mx_check_tensor(w, MX_DTYPE_I8));
  MX_TRY(mx_check_tensor(out, MX_DTYPE_I8));
  /* A pooled [N, C, 1, 1] input into a [N, C_out] out is read as [N, C] rows: with H == W == 1 every dim
   * order holds those bytes, so the exporter needs no view_copy before the linear layer. */
  const int flat = in->dim == 4 && out->dim == 2 && in->sizes[2] == 1 && in->sizes[3] == 1;
  const uint32_t c_dim = flat ? 1 : in->dim - 1;
  if (in->dim < 1 || w->dim != 2 || (!flat && out->dim != in->dim) || w->sizes[1] != in->sizes[c_dim] ||
      w->sizes[0] != out->sizes[out->dim - 1] || w->sizes[0] < 1 || w->sizes[0] > MX_CM_FC_MAX_CHANNELS) {
    return MX_ERR_BAD_SHAPE;
  }
  for (uint32_t d = 0; d + 1 < out->dim; ++d) {
    if (in->sizes[d] != out->sizes[d]) {
      return MX_ERR_BAD_SHAPE;
    }
  }
  const int32_t c_in = in->sizes[c_dim], c_out = w->sizes[0];
  const int32_t batches = c_in > 0 ? (int32_t)(in->numel / (uint32_t)c_in) : 0;
  const int64_t *mults = NULL, *shifts = NULL;
  uint32_t n_mult = 0, n_shift = 0;
  MX_TRY(per_channel_list(args[7], (uint32_t)c_out, &mults, &n_mult, INT32_MIN, INT32_MAX));
  MX_TRY(per_channel_list(args[8], (uint32_t)c_out, &shifts, &n_shift, -31, 31));
  if (n_mult != n_shift) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  int32_t *bias_data = NULL, *ksum_data = NULL;
  if (bias != NULL) {
    MX_TRY(mx_cm_i32_vector(bias, c_out, &bias_data));
  }
  if (ksum != NULL) {
    MX_TRY(mx_cm_i32_vector(ksum, c_out, &ksum_data));
  }

  const cmsis_nn_dims filter_dims = {c_in, 1, 1, c_out};
  const int32_t need = arm_fully_connected_s8_get_buffer_size(&filter_dims);
  cmsis_nn_context cm = {NULL, 0};
  cmsis_nn_fc_params p = {in_off, f_off, out_off, {act_min, act_max}};
  if (need > 0) {
    if (ksum_data == NULL || (int32_t)ksum->nbytes < need) {
      return MX_ERR_BAD_ARG_VALUE; /* this target reads kernel sums from the context: kernel_sum is required */
    }
    cm = (cmsis_nn_context){ksum_data, (int32_t)ksum->nbytes};
  } else if (ksum_data != NULL) {
    bias_data = ksum_data;
    p.input_offset = 0;
  }
  if (batches == 0) {
    return MX_OK;
  }

  const int8_t *x = (const int8_t *)in->data, *wd = (const int8_t *)w->data;
  int8_t *y = (int8_t *)out->data;
  if (n_mult == 1) {
    const cmsis_nn_per_tensor_quant_params q = {(int32_t)mults[0], (int32_t)shifts[0]};
    const cmsis_nn_dims in_dims = {batches, 1, 1, c_in}, out_dims = {batches, 1, 1, c_out};
    const cmsis_nn_dims bias_dims = {1, 1, 1, c_out};
    return mx_cm_status(arm_fully_connected_s8(&cm, &p, &q, &in_dims, x, &filter_dims, wd, &bias_dims, bias_data,
                                               &out_dims, y));
  }
  /* Per-channel: all channels in one chunk take every batch in one call (outputs c_out apart); wider
   * layers run a chunk of channels per call and batch, since the kernel's output stride is its depth. */
  int32_t m32[MX_CM_FC_CHUNK], s32[MX_CM_FC_CHUNK];
  const int32_t per = c_out < MX_CM_FC_CHUNK ? c_out : MX_CM_FC_CHUNK, rows = per == c_out ? batches : 1;
  for (int32_t o = 0; o < c_out; o += per) {
    const int32_t n = c_out - o < per ? c_out - o : per;
    for (int32_t i = 0; i < n; ++i) {
      const int64_t m = mults[o + i], sh = shifts[o + i];
      if (m != (int32_t)m || sh < -31 || sh > 31) {
        return MX_ERR_BAD_ARG_VALUE;
      }
      m32[i] = (int32_t)m;
      s32[i] = (int32_t)sh;
    }
    const cmsis_nn_per_channel_quant_params q = {m32, s32};
    const cmsis_nn_dims in_dims = {rows, 1, 1, c_in}, row_filter = {c_in, 1, 1, n}, row_bias = {1, 1, 1, n};
    const cmsis_nn_dims out_dims = {rows, 1, 1, n};
    const cmsis_nn_context row_ctx = cm.buf != NULL ? (cmsis_nn_context){ksum_data + o, 4 * n} : cm;
    for (int32_t b = 0; b < batches; b += rows) {
      MX_TRY(mx_cm_status(arm_fully_connected_per_channel_s8(
          &row_ctx, &p, &q, &in_dims, x + (size_t)b * (size_t)c_in, &row_filter, wd + (size_t)o * (size_t)c_in,
          &row_bias, bias_data != NULL ? bias_data + o : NULL, &out_dims, y + (size_t)b * (size_t)c_out + (size_t)o)));
    }
  }
  return MX_OK;
}
