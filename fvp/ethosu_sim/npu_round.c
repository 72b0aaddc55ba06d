/* The NPU's fixed-point arithmetic (npu_round.h). Products are kept in a signed 128-bit pair of words so that
 * no intermediate overflows, whatever the register values. */
#include "npu_round.h"

#include "npu_commands.h"

typedef struct {
  uint64_t hi, lo; /* two's complement, value = hi * 2^64 + lo */
} i128;

static i128 from_i64(int64_t v) { return (i128){v < 0 ? UINT64_MAX : 0, (uint64_t)v}; }

static i128 add(i128 a, i128 b) {
  i128 r = {a.hi + b.hi, a.lo + b.lo};
  if (r.lo < a.lo) r.hi++;
  return r;
}

static i128 neg(i128 a) {
  i128 r = {~a.hi, ~a.lo};
  return add(r, (i128){0, 1});
}

static int is_negative(i128 a) { return (a.hi >> 63) != 0; }

/* |v| * scale for |v| < 2^64 and scale < 2^32: at most 96 bits. */
static i128 mul_u64_u32(uint64_t v, uint32_t scale) {
  uint64_t lo = (v & 0xFFFFFFFFu) * scale, mid = (v >> 32) * scale;
  i128 r = {mid >> 32, mid << 32};
  return add(r, (i128){0, lo});
}

static i128 mul(int64_t v, uint32_t scale) {
  uint64_t magnitude = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
  i128 p = mul_u64_u32(magnitude, scale);
  return v < 0 ? neg(p) : p;
}

/* Arithmetic shift right by 0..127 (floor division by 2^shift). */
static i128 sar(i128 a, unsigned shift) {
  if (shift == 0) return a;
  uint64_t fill = is_negative(a) ? UINT64_MAX : 0;
  if (shift >= 64) {
    unsigned s = shift - 64;
    uint64_t lo = s == 0 ? a.hi : (a.hi >> s) | (fill << (64 - s));
    return (i128){fill, lo};
  }
  return (i128){(a.hi >> shift) | (fill << (64 - shift)), (a.lo >> shift) | (a.hi << (64 - shift))};
}

static int64_t to_i64(i128 a) {
  int negative = is_negative(a);
  if (a.hi != (negative ? UINT64_MAX : 0) || ((a.lo >> 63) != 0) != negative) return negative ? INT64_MIN : INT64_MAX;
  return (int64_t)a.lo;
}

static i128 pow2(unsigned n) { return n >= 64 ? (i128){(uint64_t)1 << (n - 64), 0} : (i128){0, (uint64_t)1 << n}; }

static int64_t round_shift(i128 p, unsigned shift, unsigned rounding, int value_negative) {
  if (shift == 0) return to_i64(p);
  if (rounding == MX_NPU_ROUNDING_FLOOR) return to_i64(sar(p, shift));
  if (rounding == MX_NPU_ROUNDING_TRUNCATE) {
    return is_negative(p) ? to_i64(neg(sar(neg(p), shift))) : to_i64(sar(p, shift));
  }
  i128 r = pow2(shift - 1);
  if (rounding == MX_NPU_ROUNDING_TFL && shift > 31) {
    r = add(r, value_negative ? from_i64(-(INT64_C(1) << 30)) : from_i64(INT64_C(1) << 30));
  }
  return to_i64(sar(add(p, r), shift));
}

int64_t mx_npu_rescale(int64_t value, uint32_t scale, unsigned shift, unsigned rounding) {
  return round_shift(mul(value, scale), shift & 63u, rounding, value < 0);
}

int64_t mx_npu_shift_right(int64_t value, unsigned shift, unsigned rounding) {
  return round_shift(from_i64(value), shift & 63u, rounding, value < 0);
}

int64_t mx_npu_average(int64_t sum, uint32_t count) {
  if (count <= 1) return sum;
  unsigned k = 0;
  while (k < 32 && ((uint64_t)1 << k) < count) k++; /* 2^(k-1) < count <= 2^k */
  uint64_t multiplier = ((((uint64_t)1 << 30) + 1) << k) / count;
  return round_shift(mul(sum, (uint32_t)multiplier), 30 + k, MX_NPU_ROUNDING_NATURAL, sum < 0);
}

int64_t mx_npu_saturate(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

int64_t mx_npu_add_saturate(int64_t a, int64_t b) {
  if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
  if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
  return a + b;
}
