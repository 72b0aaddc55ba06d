#include "mx_matmul_nt_f32.h"

#include "mx_conv2d_f32_tiles.h"

/* Register tiles as in mx_matmul_f32.c: 4 rows of a times 4 rows of bt, 8 loads per 16 multiply-adds, both
 * operands read along p with unit steps. Out of line for the same reason (-Os spills row pointers). */

typedef mx_matmul_nt_f32_tile nt;

static float bias_at(const float *bias, uint32_t j) { return bias != NULL ? bias[j] : 0.0f; }

/* 4 rows of a, 1 row of bt */
__attribute__((noinline)) static void tile_4x1(const nt *t) {
  const float *a0 = t->a, *a1 = a0 + t->lda, *a2 = a1 + t->lda, *a3 = a2 + t->lda, *b = t->bt;
  float c0 = bias_at(t->bias, 0), c1 = c0, c2 = c0, c3 = c0;
  for (uint32_t p = 0; p < t->k; ++p) {
    const float w = b[p];
    c0 += a0[p] * w, c1 += a1[p] * w, c2 += a2[p] * w, c3 += a3[p] * w;
  }
  t->c[0] = c0, t->c[t->ldc] = c1, t->c[2 * t->ldc] = c2, t->c[3 * t->ldc] = c3;
}

#if !(defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)) /* MVE: mx_conv2d_f32_tiles.c */
__attribute__((noinline)) static void tile_4x4(const nt *t) {
  const float *a0 = t->a, *a1 = a0 + t->lda, *a2 = a1 + t->lda, *a3 = a2 + t->lda;
  const float *b0 = t->bt, *b1 = b0 + t->ldb, *b2 = b1 + t->ldb, *b3 = b2 + t->ldb;
  const float i0 = bias_at(t->bias, 0), i1 = bias_at(t->bias, 1), i2 = bias_at(t->bias, 2), i3 = bias_at(t->bias, 3);
  float c00 = i0, c01 = i1, c02 = i2, c03 = i3, c10 = i0, c11 = i1, c12 = i2, c13 = i3;
  float c20 = i0, c21 = i1, c22 = i2, c23 = i3, c30 = i0, c31 = i1, c32 = i2, c33 = i3;
  for (uint32_t p = 0; p < t->k; ++p) {
    const float w0 = b0[p], w1 = b1[p], w2 = b2[p], w3 = b3[p];
    float v = a0[p];
    c00 += v * w0, c01 += v * w1, c02 += v * w2, c03 += v * w3;
    v = a1[p];
    c10 += v * w0, c11 += v * w1, c12 += v * w2, c13 += v * w3;
    v = a2[p];
    c20 += v * w0, c21 += v * w1, c22 += v * w2, c23 += v * w3;
    v = a3[p];
    c30 += v * w0, c31 += v * w1, c32 += v * w2, c33 += v * w3;
  }
  float *c = t->c;
  c[0] = c00, c[1] = c01, c[2] = c02, c[3] = c03;
  c += t->ldc;
  c[0] = c10, c[1] = c11, c[2] = c12, c[3] = c13;
  c += t->ldc;
  c[0] = c20, c[1] = c21, c[2] = c22, c[3] = c23;
  c += t->ldc;
  c[0] = c30, c[1] = c31, c[2] = c32, c[3] = c33;
}

/* 1 row of a, 4 rows of bt */
__attribute__((noinline)) static void tile_1x4(const nt *t) {
  const float *a = t->a, *b0 = t->bt, *b1 = b0 + t->ldb, *b2 = b1 + t->ldb, *b3 = b2 + t->ldb;
  float c0 = bias_at(t->bias, 0), c1 = bias_at(t->bias, 1), c2 = bias_at(t->bias, 2), c3 = bias_at(t->bias, 3);
  for (uint32_t p = 0; p < t->k; ++p) {
    const float v = a[p];
    c0 += v * b0[p], c1 += v * b1[p], c2 += v * b2[p], c3 += v * b3[p];
  }
  t->c[0] = c0, t->c[1] = c1, t->c[2] = c2, t->c[3] = c3;
}
#endif

/* `rows` rows of c (1 to 6 with MVE, else 4 or 1), 4 columns. */
static void tile_x4(const nt *t, uint32_t rows) {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
  mx_matmul_nt_f32_mve_x4(t, rows);
#else
  if (rows == 4) {
    tile_4x4(t);
  } else {
    tile_1x4(t);
  }
#endif
}

/* Rows in a block from row i on, of m. */
static uint32_t block_rows(uint32_t i, uint32_t m) {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
  return m - i < 6 ? m - i : 6;
#else
  return m - i >= 4 ? 4 : 1;
#endif
}

/* 1 row of a, 1 row of bt */
__attribute__((noinline)) static void tile_1x1(const nt *t) {
  float acc = bias_at(t->bias, 0);
  for (uint32_t p = 0; p < t->k; ++p) {
    acc += t->a[p] * t->bt[p];
  }
  *t->c = acc;
}

/* Rows [i, i + rows) of c, every column. */
static void row_block(nt t, const float *a, const float *bt, const float *bias, float *c, uint32_t i, uint32_t rows,
                      uint32_t n) {
  t.a = a + (size_t)i * t.lda;
  uint32_t j = 0;
  for (; j + 4 <= n; j += 4) {
    t.bt = bt + (size_t)j * t.ldb, t.bias = bias != NULL ? bias + j : NULL, t.c = c + (size_t)i * t.ldc + j;
    tile_x4(&t, rows);
  }
  for (; j < n; ++j) {
    nt u = t;
    u.bt = bt + (size_t)j * t.ldb, u.bias = bias != NULL ? bias + j : NULL;
    for (uint32_t r = 0, step; r < rows; r += step) {
      step = rows - r >= 4 ? 4 : 1;
      u.a = t.a + (size_t)r * t.lda, u.c = c + (size_t)(i + r) * t.ldc + j;
      if (step == 4) {
        tile_4x1(&u);
      } else {
        tile_1x1(&u);
      }
    }
  }
}

void mx_matmul_nt_f32(const float *a, uint32_t lda, const float *bt, uint32_t ldb, const float *bias, float *c,
                      uint32_t ldc, uint32_t m, uint32_t k, uint32_t n) {
  const nt t = {NULL, NULL, NULL, NULL, lda, ldb, ldc, k};
  for (uint32_t i = 0, rows; i < m; i += rows) {
    rows = block_rows(i, m);
    row_block(t, a, bt, bias, c, i, rows, n);
  }
}
