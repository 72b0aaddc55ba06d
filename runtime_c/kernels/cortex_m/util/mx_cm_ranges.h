#ifndef MX_CM_RANGES_H
#define MX_CM_RANGES_H
/* Load-time bounds that keep the int8 kernels' integer arithmetic defined for every input byte. The constants
 * (bias, kernel sums, multipliers, shifts) lie in the program, so a check can read them; activations are
 * bounded by their type: an int8 value plus an offset in [-127, 128] lies in [-255, 255], a weight in
 * [-128, 127]. A kernel seeds an int32 accumulator with its bias, adds K such products, requantizes
 * (arm_nn_requantize: the value shifted left by a positive shift, wrapping, then a rounding high multiply and
 * a rounding right shift) and adds an int8 output offset. Every partial sum, the shifted value and the offset
 * sum must stay in int32; a constant that lets one leave it is refused with MX_ERR_ARITH_RANGE. */
#include "mx_cm_args.h"

/* The largest |x + offset| over int8 x. */
static inline int64_t mx_cm_offset_max(int64_t offset) { return offset <= 0 ? 128 - offset : 127 + offset; }

/* The largest |arm_nn_requantize(v, mult, shift)| over |v| <= vmax < 2^31, shift in [-31, 31], or INT64_MAX
 * when v * 2^shift may leave int32 (CMSIS-NN shifts the uint32, so the value is lost). */
int64_t mx_cm_requant_max(int64_t vmax, int64_t mult, int64_t shift);

/* Whether that requantized value plus an int8 offset stays in int32. */
static inline bool mx_cm_requant_fits(int64_t vmax, int64_t mult, int64_t shift) {
  return mx_cm_requant_max(vmax, mult, shift) <= INT32_MAX - 128;
}

/* One output channel: an accumulator seeded with `seed`, plus at most `terms` in magnitude, requantized by
 * a non-negative multiplier and shift and offset by an int8: MX_OK, or MX_ERR_ARITH_RANGE naming which of
 * named[0] (the seed: bias or kernel_sum), named[1] (multiplier), named[2] (shift) lets it leave int32. (Seeds,
 * multipliers and shifts are int32 constants or ints the loader held to int32: 32-bit arguments, so that a
 * call in a per-channel loop passes them in registers.) */
mx_arg_error mx_cm_acc_check(int32_t seed, int64_t terms, int32_t mult, int32_t shift, const uint8_t named[3]);

/* Softmax and log-softmax scale each difference from the row maximum, diff in [max(diff_min, -255), 0], by
 * 2^shift in int32 (TFLite's diff_min makes that hold for its shifts, 31 included): shift >= 0 and the
 * product within int32, else MX_ERR_ARITH_RANGE naming the shift. */
mx_arg_error mx_cm_softmax_scaling_check(mx_value *const *args, uint32_t shift_arg, uint32_t diff_min_arg);

/* The longest row whose sum of exps (each up to 2^19 in Q12.19) fits int32. */
#define MX_CM_SOFTMAX_MAX_ROW 4095

#endif
