#include "mx_matmul_f32.h"

/* Register tiles. A 4x4 tile of c stays in 16 FPU registers while p runs, so each step loads 4 values of
 * a and 4 of b for 16 multiply-adds (Cortex-M's FPU has 32 single registers); VLDR has no register-offset
 * form, so fewer loads per multiply-add is what counts. Edge rows and columns take the narrower tiles.
 * The tiles stay out of line: inlined into the loop nest, -Os runs out of core registers and spills the
 * row pointers of a inside the innermost loop. */

__attribute__((noinline)) static void tile_4x4(const float *a, const float *b, const float *bias, float *c, uint32_t k,
                                               uint32_t n) {
  const float *a0 = a, *a1 = a0 + k, *a2 = a1 + k, *a3 = a2 + k;
  float i0 = bias != NULL ? bias[0] : 0.0f, i1 = bias != NULL ? bias[1] : 0.0f;
  float i2 = bias != NULL ? bias[2] : 0.0f, i3 = bias != NULL ? bias[3] : 0.0f;
  float c00 = i0, c01 = i0, c02 = i0, c03 = i0, c10 = i1, c11 = i1, c12 = i1, c13 = i1;
  float c20 = i2, c21 = i2, c22 = i2, c23 = i2, c30 = i3, c31 = i3, c32 = i3, c33 = i3;
  for (uint32_t p = 0; p < k; ++p) {
    float b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    b += n;
    float v = a0[p];
    c00 += v * b0, c01 += v * b1, c02 += v * b2, c03 += v * b3;
    v = a1[p];
    c10 += v * b0, c11 += v * b1, c12 += v * b2, c13 += v * b3;
    v = a2[p];
    c20 += v * b0, c21 += v * b1, c22 += v * b2, c23 += v * b3;
    v = a3[p];
    c30 += v * b0, c31 += v * b1, c32 += v * b2, c33 += v * b3;
  }
  c[0] = c00, c[1] = c01, c[2] = c02, c[3] = c03;
  c += n;
  c[0] = c10, c[1] = c11, c[2] = c12, c[3] = c13;
  c += n;
  c[0] = c20, c[1] = c21, c[2] = c22, c[3] = c23;
  c += n;
  c[0] = c30, c[1] = c31, c[2] = c32, c[3] = c33;
}

/* 4 rows, 1 column */
__attribute__((noinline)) static void tile_4x1(const float *a, const float *b, const float *bias, float *c, uint32_t k,
                                               uint32_t n) {
  const float *a0 = a, *a1 = a0 + k, *a2 = a1 + k, *a3 = a2 + k;
  float c0 = bias != NULL ? bias[0] : 0.0f, c1 = bias != NULL ? bias[1] : 0.0f;
  float c2 = bias != NULL ? bias[2] : 0.0f, c3 = bias != NULL ? bias[3] : 0.0f;
  for (uint32_t p = 0; p < k; ++p) {
    float v = *b;
    b += n;
    c0 += a0[p] * v, c1 += a1[p] * v, c2 += a2[p] * v, c3 += a3[p] * v;
  }
  c[0] = c0, c[n] = c1, c[2 * n] = c2, c[3 * n] = c3;
}

/* 1 row, 4 columns */
__attribute__((noinline)) static void tile_1x4(const float *a, const float *b, const float *bias, float *c, uint32_t k,
                                               uint32_t n) {
  float init = bias != NULL ? bias[0] : 0.0f;
  float c0 = init, c1 = init, c2 = init, c3 = init;
  for (uint32_t p = 0; p < k; ++p) {
    float v = a[p];
    c0 += v * b[0], c1 += v * b[1], c2 += v * b[2], c3 += v * b[3];
    b += n;
  }
  c[0] = c0, c[1] = c1, c[2] = c2, c[3] = c3;
}

/* 1 row, 1 column */
__attribute__((noinline)) static void tile_1x1(const float *a, const float *b, const float *bias, float *c, uint32_t k,
                                               uint32_t n) {
  float acc = bias != NULL ? bias[0] : 0.0f;
  for (uint32_t p = 0; p < k; ++p) {
    acc += a[p] * *b;
    b += n;
  }
  *c = acc;
}

void mx_matmul_bias_f32(const float *a, const float *b, const float *row_bias, float *c, uint32_t m, uint32_t k,
                        uint32_t n) {
  uint32_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const float *ai = a + (size_t)i * k, *bias = row_bias != NULL ? row_bias + i : NULL;
    float *ci = c + (size_t)i * n;
    uint32_t j = 0;
    for (; j + 4 <= n; j += 4) {
      tile_4x4(ai, b + j, bias, ci + j, k, n);
    }
    for (; j < n; ++j) {
      tile_4x1(ai, b + j, bias, ci + j, k, n);
    }
  }
  for (; i < m; ++i) {
    const float *ai = a + (size_t)i * k, *bias = row_bias != NULL ? row_bias + i : NULL;
    float *ci = c + (size_t)i * n;
    uint32_t j = 0;
    for (; j + 4 <= n; j += 4) {
      tile_1x4(ai, b + j, bias, ci + j, k, n);
    }
    for (; j < n; ++j) {
      tile_1x1(ai, b + j, bias, ci + j, k, n);
    }
  }
}

void mx_matmul_f32(const float *a, const float *b, float *c, uint32_t m, uint32_t k, uint32_t n) {
  mx_matmul_bias_f32(a, b, NULL, c, m, k, n);
}
