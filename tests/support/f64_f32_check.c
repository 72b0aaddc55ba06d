/* runtime_c/kernels/portable/util/mx_f64_f32.c against this host's double-precision FPU: the integer conversions
 * and bit tests give what the C expressions give, bit for bit, over random doubles of every exponent and over the
 * inputs whose results lie at or next to a rounding tie. Prints "mismatches N checked M"; exits 1 on a mismatch.
 * Built by tests/test_f64_f32.py with the host compiler (x86-64: SSE2 doubles, no excess precision). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mx_f64_f32.h"

static uint64_t mismatches, checked;
static uint64_t state = 0x9E3779B97F4A7C15ull;

static uint64_t next(void) { /* xorshift64* */
  state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
  return state * 0x2545F4914F6CDD1Dull;
}

static double from_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

static uint32_t f32_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

static void fail(const char *what, double d, uint32_t got, uint32_t want) {
  if (mismatches++ < 10) {
    printf("%s(%a): got 0x%08" PRIx32 ", want 0x%08" PRIx32 "\n", what, d, got, want);
  }
}

static void check_bool(const char *what, double d, int got, int want) {
  checked++;
  if (!got != !want) fail(what, d, (uint32_t)got, (uint32_t)want);
}

/* Every function on d, where its contract covers d. */
static void check(double d) {
  if (!isfinite(d)) {
    check_bool("is_finite", d, mx_f64_is_finite(d), 0);
    return;
  }
  check_bool("is_finite", d, mx_f64_is_finite(d), 1);
  check_bool("is_positive", d, mx_f64_is_positive(d), d > 0.0);
  check_bool("fits_f32", d, mx_f64_fits_f32(d), fabs(d) <= FLT_MAX);
  checked++;
  const uint32_t cast = f32_bits((float)d), soft = f32_bits(mx_f64_to_f32_soft(d));
  if (cast != soft) fail("to_f32", d, soft, cast);
  if (d > 0.0) {
    check_bool("recip_fits_f32", d, mx_f64_recip_fits_f32(d), 1.0 / d <= FLT_MAX);
    checked++;
    const uint32_t want = f32_bits((float)(1.0 / d)), got = f32_bits(mx_f64_recip_to_f32_soft(d));
    if (want != got) fail("recip_to_f32", d, got, want);
  }
}

/* d and its k nearest doubles on each side */
static void around(double d, int k) {
  double lo = d, hi = d;
  check(d);
  for (int i = 0; i < k; ++i) {
    lo = nextafter(lo, -INFINITY), hi = nextafter(hi, INFINITY);
    check(lo), check(hi);
  }
}

int main(int argc, char **argv) {
  const long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
  /* random bit patterns: every exponent, both signs, subnormals, infinities */
  for (long i = 0; i < n; ++i) check(from_bits(next()));
  /* random doubles whose magnitudes a float can hold or just not (exponents -160..160) */
  for (long i = 0; i < n; ++i) {
    const uint64_t b = next();
    const uint64_t exp = 1023u - 160u + (b >> 52) % 321u;
    check(from_bits((b & 0x800FFFFFFFFFFFFFull) | exp << 52));
  }
  /* ties: a float and the midpoint to its successor (exact in a double), and reciprocals that land at or
   * next to such a midpoint, in the normal and the subnormal float range */
  for (long i = 0; i < n / 4; ++i) {
    const uint32_t fb = (uint32_t)next() & 0x7F7FFFFFu;
    float f, g;
    memcpy(&f, &fb, sizeof f);
    g = nextafterf(f, INFINITY);
    const double mid = ((double)f + (double)g) / 2.0;
    around(mid, 2);
    around(-mid, 1);
    if (mid > 0.0) around(1.0 / mid, 3);
  }
  /* the edges: powers of two, the float range's ends, the reciprocal threshold */
  for (int e = -1080; e <= 1030; ++e) around(ldexp(1.0, e), 3);
  around(FLT_MAX, 3);
  around(FLT_MIN, 3);
  around(ldexp(1.0, -149), 3);
  around(ldexp(1.0, -150), 3);
  around(1.0 / FLT_MAX, 8);
  around(DBL_MAX, 2);
  around(DBL_MIN, 2);
  printf("mismatches %" PRIu64 " checked %" PRIu64 "\n", mismatches, checked);
  return mismatches != 0;
}
