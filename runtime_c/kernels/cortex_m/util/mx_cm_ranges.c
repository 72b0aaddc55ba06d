#include "mx_cm_ranges.h"

int64_t mx_cm_requant_max(int64_t vmax, int64_t mult, int64_t shift) {
  const int64_t left = shift > 0 ? shift : 0, m = mult < 0 ? -mult : mult;
  if (vmax > (INT32_MAX >> left)) {
    return INT64_MAX;
  }
  /* |v| * |m| <= 2^62; the doubling high multiply's rounding and the rounding right shift's each add at
   * most one */
  return (((((vmax << left) * m) >> 31) + 1) >> (left - shift)) + 1;
}

mx_arg_error mx_cm_acc_check(int32_t seed, int64_t terms, int32_t mult, int32_t shift, const uint8_t named[3]) {
  const int64_t acc = (seed < 0 ? -(int64_t)seed : seed) + terms;
  /* 255 of headroom: with a shift <= 0 the requantized value is at most |acc| + 1, so a program whose
   * accumulation fits fails only through a positive shift */
  MX_REFUSE_IF(acc > INT32_MAX - 255, named[0], MX_ERR_ARITH_RANGE);
  MX_REFUSE_IF(mult < 0, named[1], MX_ERR_ARITH_RANGE);
  MX_REFUSE_IF(!mx_cm_requant_fits(acc, mult, shift), named[2], MX_ERR_ARITH_RANGE);
  return MX_OK;
}

mx_arg_error mx_cm_softmax_scaling_check(mx_value *const *args, uint32_t shift_arg, uint32_t diff_min_arg) {
  const int64_t shift = mx_arg_int(args, shift_arg), diff_min = mx_arg_int(args, diff_min_arg);
  const int64_t diff_max = diff_min < -255 ? 255 : -diff_min; /* diff_min <= 0: the loader's range */
  MX_REFUSE_IF(shift < 0 || diff_max > (INT32_MAX >> shift), shift_arg, MX_ERR_ARITH_RANGE);
  return MX_OK;
}
