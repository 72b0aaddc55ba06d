#ifndef MX_PORTABLE_F64_F32_H
#define MX_PORTABLE_F64_F32_H
/* A double argument taken as a float, bit for bit what the C casts give, without libgcc's soft-float double on a
 * core with a single-precision FPU (Cortex-M33, -M4): (float)(1.0 / scale) links its multiply-divide object and a
 * double comparison its compare object, ~1.5 KB of firmware that only the quantize kernels' one division per call
 * needs. With a double-precision FPU (Cortex-M55) the casts are one instruction and are used; elsewhere, hosts
 * included, the integer code runs, so that every host test of the kernels runs it. */
#include <stdbool.h>
#include <stdint.h>

#if defined(__arm__) && defined(__ARM_FP) && (__ARM_FP & 8)
#define MX_HARD_F64 1
#else
#define MX_HARD_F64 0
#endif

/* In integer arithmetic (what the wrappers below take without a double-precision FPU; tests call them on any
 * host): (float)d for finite d, and (float)(1.0 / d) for finite d > 0, the reciprocal rounded to double and then
 * to float as the expression rounds (55 steps of a shift-and-subtract division). */
float mx_f64_to_f32_soft(double d);
float mx_f64_recip_to_f32_soft(double d);

static inline float mx_f64_to_f32(double d) { return MX_HARD_F64 ? (float)d : mx_f64_to_f32_soft(d); }
static inline float mx_f64_recip_to_f32(double d) {
  return MX_HARD_F64 ? (float)(1.0 / d) : mx_f64_recip_to_f32_soft(d);
}

/* The bits of d. */
static inline uint64_t mx_f64_bits(double d) {
  uint64_t b;
  __builtin_memcpy(&b, &d, sizeof b); /* inline under -ffreestanding too */
  return b;
}

/* Tests of d's bits that compile to integer instructions. */
static inline bool mx_f64_is_finite(double d) { return ((mx_f64_bits(d) >> 52) & 0x7FFu) != 0x7FFu; }

/* d > 0 (not -0), for d not a NaN */
static inline bool mx_f64_is_positive(double d) { return (int64_t)mx_f64_bits(d) > 0; }

/* |d| <= FLT_MAX, for finite d, whose magnitudes order as their bits do: FLT_MAX is 0x47EFFFFFE0000000. */
static inline bool mx_f64_fits_f32(double d) { return (mx_f64_bits(d) << 1) <= (0x47EFFFFFE0000000ull << 1); }

/* For finite d > 0: 1.0 / d, rounded to double, is at most FLT_MAX. 0x37F0000010000010 is the least such d (by
 * exact rationals: 1 / d <= FLT_MAX + 2^74, the midpoint to the next double, which rounds down to FLT_MAX, whose
 * last mantissa bit is 0); tests/test_f64_f32.py holds it to the FPU's division on both sides. */
static inline bool mx_f64_recip_fits_f32(double d) { return mx_f64_bits(d) >= 0x37F0000010000010ull; }

#endif
