/* cortex_m::quantized_prelu.out: PReLU with one slope per channel on int8, out = output_zero_point +
 * requantize((x - input_zero_point) * 2^20) with the positive multiplier where x > input_zero_point and
 * channel c's negative one (of input_scale * slope_c / output_scale / 2^20, any sign) elsewhere; the 2^20
 * keeps the double rounding exact on differences this small. CMSIS-NN has none (a depthwise
 * 1x1 conv cannot switch on the sign); the arithmetic is arm_nn_requantize's, written down in
 * mcu_export/int8/reference/prelu.py. The input may be in any dim order; channel_dim is logical. */
#include "arm_nnsupportfunctions.h"
#include "util/mx_cm_args.h"
#include "util/mx_cm_ranges.h"

#define A(name) MX_ARG_cortex_m_quantized_prelu_##name
#define MX_CM_PRELU_LEFT_SHIFT 20

mx_arg_error mx_k_cortex_m_quantized_prelu_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  MX_REFUSE_IF(in->dtype != MX_DTYPE_I8, A(input), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(out->dtype != MX_DTYPE_I8, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(!mx_cm_same_memory(in, out), A(out), MX_ERR_BAD_SHAPE);
  const int64_t channel_dim = mx_arg_int(args, A(channel_dim));
  MX_REFUSE_IF(channel_dim >= (int64_t)in->dim, A(channel_dim), MX_ERR_BAD_ARG_VALUE);
  const int32_t channels = in->sizes[channel_dim];
  MX_TRY(mx_cm_i32_vector(args, A(negative_multipliers), channels));
  MX_TRY(mx_cm_i32_vector(args, A(negative_shifts), channels));
  const int32_t *mults = (const int32_t *)mx_arg_tensor(args, A(negative_multipliers))->data;
  const int32_t *shifts = (const int32_t *)mx_arg_tensor(args, A(negative_shifts))->data;
  /* (x - zero_point) * 2^20 requantized, plus the output zero point, in int32 for any x */
  const int64_t v = mx_cm_offset_max(-mx_arg_int(args, A(input_zero_point))) << MX_CM_PRELU_LEFT_SHIFT;
  MX_REFUSE_IF(!mx_cm_requant_fits(v, mx_arg_int(args, A(positive_multiplier)), mx_arg_int(args, A(positive_shift))),
               A(positive_shift), MX_ERR_ARITH_RANGE);
  for (int32_t c = 0; c < channels; ++c) {
    MX_REFUSE_IF(shifts[c] < -31 || shifts[c] > 31, A(negative_shifts), MX_ERR_BAD_ARG_VALUE);
    MX_REFUSE_IF(!mx_cm_requant_fits(v, mults[c], shifts[c]), A(negative_shifts), MX_ERR_ARITH_RANGE);
  }
  return MX_OK;
}

mx_error mx_k_cortex_m_quantized_prelu_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input));
  const uint32_t channel_dim = (uint32_t)mx_arg_int(args, A(channel_dim));
  const int32_t channels = in->sizes[channel_dim];
  /* elements of one channel run in blocks of `inner` in memory: the product of the dims stored after it */
  uint32_t inner = 1;
  for (uint32_t p = in->dim; p > 0 && in->dim_order[p - 1] != channel_dim; --p) {
    inner *= (uint32_t)in->sizes[in->dim_order[p - 1]];
  }
  const int32_t in_zp = mx_cm_int(args, A(input_zero_point)), out_zp = mx_cm_int(args, A(output_zero_point));
  const int32_t pos_mult = mx_cm_int(args, A(positive_multiplier)), pos_shift = mx_cm_int(args, A(positive_shift));
  const int32_t *neg_mult = (const int32_t *)mx_arg_tensor(args, A(negative_multipliers))->data;
  const int32_t *neg_shift = (const int32_t *)mx_arg_tensor(args, A(negative_shifts))->data;
  const int8_t *x = (const int8_t *)in->data;
  int8_t *y = (int8_t *)mx_arg_tensor(args, A(out))->data;
  for (uint32_t i = 0; i < in->numel; ++i) {
    const int32_t c = (int32_t)((i / inner) % (uint32_t)channels);
    const int32_t v = (x[i] - in_zp) * (1 << MX_CM_PRELU_LEFT_SHIFT);
    int32_t q =
        out_zp + (v > 0 ? arm_nn_requantize(v, pos_mult, pos_shift) : arm_nn_requantize(v, neg_mult[c], neg_shift[c]));
    q = q < -128 ? -128 : q > 127 ? 127 : q;
    y[i] = (int8_t)q;
  }
  return MX_OK;
}
