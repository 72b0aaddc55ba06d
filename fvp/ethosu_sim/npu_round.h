/* The NPU's fixed-point arithmetic: a value times a 32-bit unsigned scale, shifted right with one of the
 * three rounding modes, computed exactly (96-bit intermediate) for any 64-bit value. */
#ifndef MX_NPU_ROUND_H
#define MX_NPU_ROUND_H

#include <stdint.h>

/* value * scale / 2^shift (shift 0..63), rounded as `rounding` (mx_npu_rounding):
 *   TFL      TOSA's DOUBLE_ROUND: floor((v * s + 2^(shift-1) + (shift > 31 ? (v >= 0 ? 2^30 : -2^30) : 0)) / 2^shift)
 *            (TFLite's SaturatingRoundingDoublingHighMul then RoundingDivideByPOT, written as one step)
 *   NATURAL  TOSA's SINGLE_ROUND: floor((v * s + 2^(shift-1)) / 2^shift), halves towards +infinity
 *   TRUNCATE towards zero
 * The result saturates to int64 (only reachable from values outside what the NPU's 32/40-bit paths hold). */
int64_t mx_npu_rescale(int64_t value, uint32_t scale, unsigned shift, unsigned rounding);

/* A rounding no U55 register holds: the Ethos-U85's TRUNCATE_TO_LOWER, floor((v * s) / 2^shift), which regor writes
 * for the multiply of a large padded average and for ARITHMETIC_RIGHT_SHIFT without rounding. */
#define MX_NPU_ROUNDING_FLOOR 3u

/* value / 2^shift with the rounding of the same name (scale 1). */
int64_t mx_npu_shift_right(int64_t value, unsigned shift, unsigned rounding);

/* TOSA's reciprocal_scale(count) for an average over `count` elements (count >= 1), and the average:
 * apply_scale_32(sum, multiplier, shift, single round). */
int64_t mx_npu_average(int64_t sum, uint32_t count);

int64_t mx_npu_saturate(int64_t v, int64_t lo, int64_t hi);
int64_t mx_npu_add_saturate(int64_t a, int64_t b); /* a + b, saturated to int64 */

#endif
