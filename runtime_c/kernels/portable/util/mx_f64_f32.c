#include "mx_f64_f32.h"

#include <string.h>

#define EXP_MASK 0x7FFu
#define MANT_BITS 52

/* m with its `drop` low bits (1..63) rounded off, to nearest, ties to even. */
static uint64_t round_off(uint64_t m, uint32_t drop) {
  const uint64_t half = (uint64_t)1 << (drop - 1u), rest = m & ((half << 1) - 1u);
  m >>= drop;
  return m + (rest > half || (rest == half && (m & 1u)));
}

/* The float nearest m * 2^e (m > 0, at most 54 bits), ties to even; infinity past the float's range, as a cast
 * gives. A float is f * 2^p with f < 2^24 and p >= -149, whose bits are ((p + 149) << 23) + f: a subnormal's
 * (p = -149) are f itself, and a carry of f to 2^24 (or of a subnormal's to 2^23) lands in the exponent, which is
 * then right. */
static float f32_nearest(uint64_t m, int32_t e) {
  const int32_t top = 63 - __builtin_clzll(m) + e; /* m * 2^e lies in [2^top, 2^(top + 1)) */
  if (top < -151) return 0.0f;                     /* below half the least subnormal, 2^-150 */
  if (top > 127) return __builtin_inff();
  const int32_t p = top < -126 ? -149 : top - 23;  /* the weight of the float's last bit */
  const uint64_t f = p > e ? round_off(m, (uint32_t)(p - e)) : m << (e - p);
  const uint32_t bits = ((uint32_t)(p + 149) << 23) + (uint32_t)f;
  float out;
  memcpy(&out, &bits, sizeof out);
  return out;
}

/* d's magnitude as m * 2^e with m < 2^53; m is 0 for zero. */
static uint64_t unpack(double d, int32_t *e) {
  const uint64_t b = mx_f64_bits(d), frac = b & (((uint64_t)1 << MANT_BITS) - 1u);
  const uint32_t biased = (uint32_t)(b >> MANT_BITS) & EXP_MASK;
  *e = (biased != 0u ? (int32_t)biased : 1) - 1075;
  return biased != 0u ? frac | (uint64_t)1 << MANT_BITS : frac;
}

float mx_f64_to_f32_soft(double d) {
  int32_t e;
  const uint64_t m = unpack(d, &e);
  const float mag = m != 0u ? f32_nearest(m, e) : 0.0f;
  return (mx_f64_bits(d) >> 63) != 0u ? -mag : mag;
}

float mx_f64_recip_to_f32_soft(double d) {
  int32_t e;
  uint64_t m = unpack(d, &e);
  const int32_t lead = __builtin_clzll(m) - 11; /* a subnormal d: its leading one to bit 52 */
  m <<= lead, e -= lead;
  /* q = floor(2^106 / m) in (2^53, 2^54]: double's 53 bits and the rounding bit, by long division from the first
   * quotient bit that can be one (2^52 <= m) */
  uint64_t r = (uint64_t)1 << 52, q = 0;
  for (int i = 0; i < 55; ++i) {
    q <<= 1;
    if (r >= m) r -= m, q |= 1u;
    r <<= 1;
  }
  /* 1 / d = (q + rest) * 2^(-106 - e), 0 <= rest < 1 and nonzero when r is: rounded to double's 53 bits first by
   * dropping q's last bit (q = 2^54, d a power of two, drops a zero; below 2^-1022 a double would be subnormal, but
   * every such value is far below the float's least and rounds to 0) */
  const bool up = (q & 1u) && (r != 0u || (q & 2u));
  return f32_nearest((q >> 1) + up, -105 - e);
}
