/* cortex_m::quantized_layer_norm.out: LayerNorm over the trailing dims of an int8 tensor in integers only.
 * CMSIS-NN has no LayerNorm; the arithmetic is ours, written down (and held bit-exact by the tests) in
 * mcu_export/int8/reference/layer_norm.py: int32 sum, exact N * (x - mean), int64 sum of squares, an
 * integer square root and one reciprocal per row, a Q8 normalized value, then int16 weight, int32 bias and one
 * requantization.
 * weight int16 and bias int32 hold N values each, N the product of the input's trailing dims. */
#include "arm_nnsupportfunctions.h"
#include "util/mx_cm_args.h"

#define A(name) MX_ARG_cortex_m_quantized_layer_norm_##name
#define MX_CM_LN_MAX_N 16384 /* keeps V * 2^16 in int64 (reference: MAX_NORMALIZED) */
#define MX_CM_LN_NORM_BITS 8
#define MX_CM_LN_INV_BITS 46

mx_arg_error mx_k_cortex_m_quantized_layer_norm_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *w = mx_arg_tensor(args, A(weight));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  MX_TRY(mx_check_arg_tensor(args, A(input), MX_DTYPE_I8));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_I8));
  MX_TRY(mx_check_arg_tensor(args, A(weight), MX_DTYPE_I16));
  const uint32_t n = w->numel;
  MX_REFUSE_IF(n == 0 || n > MX_CM_LN_MAX_N, A(weight), MX_ERR_BAD_SHAPE);
  MX_TRY(mx_cm_i32_vector(args, A(bias), (int32_t)n));
  uint32_t trailing = 1;
  for (uint32_t d = in->dim; d > 0 && trailing < n; --d) {
    trailing *= (uint32_t)in->sizes[d - 1];
  }
  MX_REFUSE_IF(trailing != n, A(weight), MX_ERR_BAD_SHAPE); /* N must be a product of trailing dims */
  MX_REFUSE_IF(out->numel != in->numel || out->dim != in->dim, A(out), MX_ERR_BAD_SHAPE);
  for (uint32_t d = 0; d < in->dim; ++d) {
    MX_REFUSE_IF(out->sizes[d] != in->sizes[d], A(out), MX_ERR_BAD_SHAPE);
  }
  return MX_OK;
}

/* floor(sqrt(v)), digit by digit: exact, so the C and the reference's math.isqrt agree. */
static uint64_t isqrt_u64(uint64_t v) {
  uint64_t root = 0, bit = (uint64_t)1 << 62;
  while (bit > v) {
    bit >>= 2;
  }
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

static int32_t sat_i32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v; }

mx_error mx_k_cortex_m_quantized_layer_norm_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *w = mx_arg_tensor(args, A(weight));
  const int16_t *weight = (const int16_t *)w->data;
  const int32_t *bias = (const int32_t *)mx_arg_tensor(args, A(bias))->data;
  const int32_t n = (int32_t)w->numel, rows = (int32_t)(in->numel / w->numel);
  const int64_t epsilon = mx_arg_int(args, A(epsilon));
  const int32_t out_zp = mx_cm_int(args, A(output_zero_point)), mult = mx_cm_int(args, A(output_multiplier));
  const int32_t shift = mx_cm_int(args, A(output_shift));
  const int8_t *x = (const int8_t *)in->data;
  int8_t *y = (int8_t *)mx_arg_tensor(args, A(out))->data;
  for (int32_t r = 0; r < rows; ++r, x += n, y += n) {
    int32_t sum = 0;
    for (int32_t i = 0; i < n; ++i) {
      sum += x[i];
    }
    int64_t squares = 0;
    for (int32_t i = 0; i < n; ++i) {
      const int64_t d = (int64_t)n * x[i] - sum;
      squares += d * d;
    }
    const uint64_t v = (uint64_t)(squares / n + epsilon);
    const int64_t root = (int64_t)isqrt_u64(v << (2 * MX_CM_LN_NORM_BITS));
    /* one division per row: |d * inv| < 2^46 (reference docstring), so the product needs no more than int64 */
    const int64_t inv = root > 0 ? ((int64_t)1 << MX_CM_LN_INV_BITS) / root : 0;
    const int32_t drop = MX_CM_LN_INV_BITS - 2 * MX_CM_LN_NORM_BITS;
    for (int32_t i = 0; i < n; ++i) {
      const int64_t num = ((int64_t)n * x[i] - sum) * inv;
      const int64_t mag = ((num < 0 ? -num : num) + ((int64_t)1 << (drop - 1))) >> drop;
      const int64_t norm = num < 0 ? -mag : mag;
      const int32_t acc = sat_i32(norm * weight[i] + bias[i]);
      /* acc may sit at an int32 limit (saturated), so the offset is added in int64 */
      const int64_t out = (int64_t)arm_nn_requantize(acc, mult, shift) + out_zp;
      y[i] = (int8_t)(out < INT8_MIN ? INT8_MIN : out > INT8_MAX ? INT8_MAX : out);
    }
  }
  return MX_OK;
}
