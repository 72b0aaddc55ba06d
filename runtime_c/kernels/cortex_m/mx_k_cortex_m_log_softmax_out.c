/* cortex_m::log_softmax.out: log-softmax over the innermost memory dim of an int8 tensor, in integers.
 * CMSIS-NN has none; the arithmetic is ours, written down (and held bit-exact by the tests) in
 * mcu_export/int8/reference/log_softmax.py: arm_softmax_s8's Q5.26 differences, exp and Q12.19 sum, then
 * ln(sum) from a 33-entry table with linear interpolation. The output is fixed at scale 1/16, zero point
 * 127 (TFLite's int8 LogSoftmax convention); the input zero point cancels out. */
#include "arm_nnsupportfunctions.h"
#include "util/mx_cm_args.h"
#include "util/mx_cm_ranges.h"

#define A(name) MX_ARG_cortex_m_log_softmax_##name
#define MX_CM_LSM_ACCUM_BITS 12
#define MX_CM_LSM_SUM_POINT (31 - MX_CM_LSM_ACCUM_BITS)
#define MX_CM_LSM_TABLE_BITS 5
#define MX_CM_LSM_FRACTION_BITS (30 - MX_CM_LSM_TABLE_BITS)
#define MX_CM_LSM_MAX_ROW 4095 /* keeps the Q12.19 sum of exps in int32 */
#define MX_CM_LSM_OUTPUT_ZP 127

static const int64_t LN2_Q26 = 46516320;
/* ln(1 + i / 32) in Q5.26 */
static const int32_t LN_TABLE[(1 << MX_CM_LSM_TABLE_BITS) + 1] = {
    0,        2065051,  4068450,  6013770,  7904286,  9743000,  11532676, 13275861, 14974910, 16632003, 18249163,
    19828268, 21371068, 22879196, 24354175, 25797432, 27210303, 28594040, 29949820, 31278752, 32581878, 33860181,
    35114589, 36345978, 37555180, 38742978, 39910118, 41057306, 42185213, 43294476, 44385701, 45459466, 46516320};

/* gemmlowp's exp on [-1/4, 0) and exp(-2^k / 4) for the 7 higher bits, as arm_softmax_s8 uses them */
static const int32_t EXP_QUARTER_POLY_C = 1895147668;
static const int32_t ONE_THIRD_Q31 = 715827883;
static const int32_t EXP_BIT_FACTOR[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};

mx_arg_error mx_k_cortex_m_log_softmax_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  MX_REFUSE_IF(in->dtype != MX_DTYPE_I8, A(input), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(out->dtype != MX_DTYPE_I8, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(!mx_cm_same_memory(in, out), A(out), MX_ERR_BAD_SHAPE);
  uint32_t d = 0;
  MX_CHECK(A(dim), mx_wrap_dim(mx_arg_int(args, A(dim)), in->dim, &d));
  MX_REFUSE_IF(in->dim > 0 && in->dim_order[in->dim - 1] != d, A(dim), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(in->dim > 0 && in->sizes[d] > MX_CM_LSM_MAX_ROW, A(input), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(mx_arg_int(args, A(input_multiplier)) <= 0, A(input_multiplier), MX_ERR_ARITH_RANGE);
  return mx_cm_softmax_scaling_check(args, A(input_shift), A(diff_min));
}

/* exp(val) for val <= 0 in Q5.26, result in Q0.31 (arm_softmax_s8's, to the bit) */
static int32_t exp_on_negative_values(int32_t val) {
  const int32_t mod_minus_quarter = (val & ((1 << 24) - 1)) - (1 << 24);
  const int32_t remainder = mod_minus_quarter - val;
  const int32_t x = mod_minus_quarter * 32 + (1 << 28);
  const int32_t x2 = arm_nn_doubling_high_mult(x, x);
  const int32_t x4_over_4 = arm_nn_divide_by_power_of_two(arm_nn_doubling_high_mult(x2, x2), 2);
  const int32_t cubic = arm_nn_doubling_high_mult(x4_over_4 + arm_nn_doubling_high_mult(x2, x), ONE_THIRD_Q31);
  const int32_t poly = x + arm_nn_divide_by_power_of_two(cubic + x2, 1);
  int32_t result = EXP_QUARTER_POLY_C + arm_nn_doubling_high_mult(EXP_QUARTER_POLY_C, poly);
  for (int32_t k = 0; k < 7; k++) {
    if (remainder & (1 << (24 + k))) {
      result = arm_nn_doubling_high_mult(result, EXP_BIT_FACTOR[k]);
    }
  }
  return val == 0 ? NN_Q31_MAX : result;
}

/* ln(total / 2^19) in Q5.26 for total >= 2^19 */
static int64_t log_of_sum(int32_t total) {
  int32_t top = 30;
  while (top > 0 && (total >> top) == 0) {
    --top;
  }
  const int32_t fraction = (int32_t)(((uint32_t)total << (30 - top)) - (1u << 30));
  const int32_t i = fraction >> MX_CM_LSM_FRACTION_BITS;
  const int64_t rest = fraction & ((1 << MX_CM_LSM_FRACTION_BITS) - 1);
  const int64_t between = ((int64_t)(LN_TABLE[i + 1] - LN_TABLE[i]) * rest) >> MX_CM_LSM_FRACTION_BITS;
  return (int64_t)(top - MX_CM_LSM_SUM_POINT) * LN2_Q26 + LN_TABLE[i] + between;
}

mx_error mx_k_cortex_m_log_softmax_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  const int32_t row = in->dim > 0 ? in->sizes[mx_wrapped_dim(mx_arg_int(args, A(dim)), in->dim)] : 1;
  if (row == 0 || in->numel == 0) {
    return MX_OK;
  }
  const int32_t mult = mx_cm_int(args, A(input_multiplier)), diff_min = mx_cm_int(args, A(diff_min));
  const uint32_t scale = 1u << mx_cm_int(args, A(input_shift)); /* shift in [0, 31], checked */
  const int32_t rows = (int32_t)(in->numel / (uint32_t)row);
  const int8_t *x = (const int8_t *)in->data;
  int8_t *y = (int8_t *)out->data;
  for (int32_t r = 0; r < rows; ++r, x += row, y += row) {
    int32_t max = x[0];
    for (int32_t i = 1; i < row; ++i) {
      max = x[i] > max ? x[i] : max;
    }
    int32_t total = 0;
    for (int32_t i = 0; i < row; ++i) {
      const int32_t diff = x[i] - max;
      if (diff >= diff_min) {
        const int32_t scaled = arm_nn_doubling_high_mult((int32_t)((uint32_t)diff * scale), mult);
        total += arm_nn_divide_by_power_of_two(exp_on_negative_values(scaled), MX_CM_LSM_ACCUM_BITS);
      }
    }
    const int64_t log_sum = log_of_sum(total);
    for (int32_t i = 0; i < row; ++i) {
      const int32_t diff = x[i] - max;
      int64_t q = -128;
      if (diff >= diff_min) {
        const int64_t scaled = arm_nn_doubling_high_mult((int32_t)((uint32_t)diff * scale), mult);
        q = ((scaled - log_sum + ((int64_t)1 << 21)) >> 22) + MX_CM_LSM_OUTPUT_ZP;
        q = q < -128 ? -128 : q > 127 ? 127 : q;
      }
      y[i] = (int8_t)q;
    }
  }
  return MX_OK;
}
