#ifndef MX_PORTABLE_INT_FLOAT_H
#define MX_PORTABLE_INT_FLOAT_H
/* int64 → float/double, correctly rounded (to nearest, ties to even) exactly as a C cast, in integer
 * arithmetic. A cast from int64 has no FPU instruction on Cortex-M: GCC calls libgcc's __aeabi_l2d /
 * __aeabi_l2f, whose objects bring the whole soft-float adder (~0.9 KB for double, ~0.5 KB for float)
 * into firmware that otherwise needs none of it. */
#include <stdint.h>
#include <string.h>

/* |v| normalised so that bit 63 is set; *top = index of v's highest set bit. v != 0. */
static inline uint64_t mx_int_float_normalise(int64_t v, int *top) {
  uint64_t m = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
  const uint32_t hi = (uint32_t)(m >> 32);
  const int lz = hi != 0u ? __builtin_clz(hi) : 32 + __builtin_clz((uint32_t)m);
  *top = 63 - lz;
  return m << lz;
}

static inline double mx_i64_to_f64(int64_t v) {
  if (v == 0) {
    return 0.0;
  }
  int top;
  const uint64_t m = mx_int_float_normalise(v, &top);
  uint64_t mant = m >> 11; /* 53 bits, the leading one included */
  const uint32_t rest = (uint32_t)m & 0x7FFu;
  if (rest > 0x400u || (rest == 0x400u && (mant & 1u))) {
    ++mant; /* a carry out to 2^53 lands in the exponent field, which is then right */
  }
  const uint64_t bits = (v < 0 ? (uint64_t)1 << 63 : 0u) + ((uint64_t)(top + 1022) << 52) + mant;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

static inline float mx_i64_to_f32(int64_t v) {
  if (v == 0) {
    return 0.0f;
  }
  int top;
  const uint64_t m = mx_int_float_normalise(v, &top);
  uint32_t mant = (uint32_t)(m >> 40); /* 24 bits */
  const uint64_t rest = m & (((uint64_t)1 << 40) - 1u), half = (uint64_t)1 << 39;
  if (rest > half || (rest == half && (mant & 1u))) {
    ++mant;
  }
  const uint32_t bits = (v < 0 ? 0x80000000u : 0u) + ((uint32_t)(top + 126) << 23) + mant;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* double → int64 defined for every double: NaN is 0, values at or beyond 2^63 saturate (a C cast of them is
 * undefined); the rest truncate toward zero as the cast does. */
static inline int64_t mx_f64_to_i64(double d) {
  if (d != d) {
    return 0;
  }
  if (d >= 9223372036854775808.0) {
    return INT64_MAX;
  }
  return d <= -9223372036854775808.0 ? INT64_MIN : (int64_t)d;
}

#endif
