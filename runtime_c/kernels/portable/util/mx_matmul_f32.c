#include "mx_matmul_f32.h"

void mx_matmul_f32(const float *a, const float *b, float *c, uint32_t m, uint32_t k, uint32_t n) {
  for (uint32_t i = 0; i < m; ++i) {
    float *ci = c + (size_t)i * n;
    for (uint32_t j = 0; j < n; ++j) {
      ci[j] = 0.0f;
    }
    /* i-p-j order: the inner loop streams rows of b and c, which vectorizes (MVE, SIMD hosts). */
    for (uint32_t p = 0; p < k; ++p) {
      float aip = a[(size_t)i * k + p];
      const float *bp = b + (size_t)p * n;
      for (uint32_t j = 0; j < n; ++j) {
        ci[j] += aip * bp[j];
      }
    }
  }
}
