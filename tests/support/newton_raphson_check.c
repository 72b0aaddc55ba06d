/* The softmax graph's per-row Newton-Raphson (mcu_export/ethosu/softmax_tosa.py) against one_over_one_plus_x, in
 * C, for tests/test_ethosu_softmax.py: the same arithmetic as its numpy check_newton_raphson, which takes minutes
 * over all 2^27 inputs where this takes a second. The test holds the two together on a strided sample (equal
 * counts and checksums) before trusting this one with the whole range.
 *
 *   newton_raphson_check START STOP STEP NR_CONSTANT NR_SLOPE NR_ONE
 * prints "saturating N checksum S" (S: the sum of every scale, wrapping at 2^64) and exits 0, or names the first
 * half that breaks a range requirement or differs from the reference and exits 1. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define I32_MAX 2147483647LL
#define I32_MIN (-2147483648LL)

/* Every product here is of two values below 2^31 in magnitude: int64 holds it (INT32_MIN squared never occurs,
 * half and x being positive), and >> on a negative int64 is arithmetic with GCC and clang, as numpy's is. */
static int64_t dhm(int64_t a, int64_t b) { return (a * b + (1LL << 30)) >> 31; }

static int64_t sat_shift(int64_t v, int exp) {
  int64_t thresh = (1LL << (31 - exp)) - 1;
  if (v > thresh) return I32_MAX;
  if (v < -thresh) return I32_MIN;
  return v * (1LL << exp);
}

static int in_i32(int64_t v) { return v >= I32_MIN && v <= I32_MAX; }

static int fail(int64_t half, const char *what) {
  printf("half %" PRId64 ": %s\n", half, what);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s START STOP STEP NR_CONSTANT NR_SLOPE NR_ONE\n", argv[0]);
    return 2;
  }
  int64_t start = strtoll(argv[1], NULL, 0), stop = strtoll(argv[2], NULL, 0), step = strtoll(argv[3], NULL, 0);
  int64_t constant = strtoll(argv[4], NULL, 0), slope = strtoll(argv[5], NULL, 0), one = strtoll(argv[6], NULL, 0);
  uint64_t checksum = 0;
  long saturating = 0;
  for (int64_t half = start; half < stop; half += step) {
        /* one_over_one_plus_x as the reference writes it, from val = 2 * half - 2^31 */
    int64_t half_denominator = (2 * half - (1LL << 31) + I32_MAX + 1) >> 1;
    int64_t ref = 1515870810 + dhm(half_denominator, -1010580540);
    for (int i = 0; i < 3; i++) {
      ref = ref + sat_shift(dhm(ref, (1LL << 29) - dhm(half_denominator, ref)), 2);
      if (!in_i32(ref)) return fail(half, "reference leaves int32");
    }
    ref = sat_shift(ref, 1);
        /* the graph: MUL (shift 31) results, SUB/ADD results and the shifted values must all fit int32 */
    int64_t x = constant + dhm(half, slope);
    for (int i = 0; i < 3; i++) {
      int64_t inner = one - dhm(half, x);
      int64_t q = dhm(x, inner);
      if (!in_i32(inner)) return fail(half, "1 - half * x leaves int32");
      if (q >= (1LL << 29) || q <= -(1LL << 29)) return fail(half, "q << 2 overflows or saturates");
      x = x + q * 4;
      if (!in_i32(x)) return fail(half, "x leaves int32");
    }
    if (x <= 0 || x > (1LL << 30)) return fail(half, "x outside (0, 2^30]");
    int64_t scale = x + (x < (1LL << 30) - 1 ? x : (1LL << 30) - 1);
    if (!in_i32(scale)) return fail(half, "scale leaves int32");
    if (scale != ref) return fail(half, "scale differs from one_over_one_plus_x");
    saturating += x == (1LL << 30);
    checksum += (uint64_t)scale;
  }
  printf("saturating %ld checksum %" PRIu64 "\n", saturating, checksum);
  return 0;
}
