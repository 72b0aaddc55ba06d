#include "mx_matmul_nt_f32.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>
#endif

/* Register tiles as in mx_matmul_f32.c: 4 rows of a times 4 rows of bt, 8 loads per 16 multiply-adds, both
 * operands read along p with unit steps. Out of line for the same reason (-Os spills row pointers). */

typedef struct nt {
  const float *a, *bt, *bias;
  float *c;
  uint32_t lda, ldb, ldc, k;
} nt;

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

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
/* MVE: 4 columns of c in a vector, their 4 rows of bt (ldb apart) in one gather per p, times each of `rows` rows of
 * a (up to 6: 6 accumulators, the gather and a product fill the 8 vector registers), so that a channels-last image
 * row of 5 or 6 pixels is one tile. The vector operators take the scalar code's contraction (none under GCC's
 * -std=c11: a multiply and an add, as the FPU's vmla) and MVE rounds as the FPU does: the same bits, but that MVE
 * flushes subnormals to zero. */
static inline __attribute__((always_inline)) void rows_x4(const nt *t, const uint32_t rows) {
  const uint32_t lda = t->lda;
  const float *a = t->a, *b = t->bt;
  const uint32x4_t off = vmulq_n_u32(vidupq_n_u32(0u, 1), t->ldb);
  float32x4_t c0 = t->bias != NULL ? vld1q_f32(t->bias) : vdupq_n_f32(0.0f), c1 = c0, c2 = c0, c3 = c0, c4 = c0;
  float32x4_t c5 = c0;
  for (uint32_t p = 0; p < t->k; ++p) {
    const float32x4_t w = vldrwq_gather_shifted_offset_f32(b + p, off);
    const float *ap = a + p;
    c0 += ap[0] * w;
    if (rows > 1) c1 += ap[lda] * w;
    if (rows > 2) c2 += ap[2 * lda] * w;
    if (rows > 3) c3 += ap[3 * lda] * w;
    if (rows > 4) c4 += ap[4 * lda] * w;
    if (rows > 5) c5 += ap[5 * lda] * w;
  }
  float *c = t->c;
  const uint32_t ldc = t->ldc;
  vst1q_f32(c, c0);
  if (rows > 1) vst1q_f32(c + ldc, c1);
  if (rows > 2) vst1q_f32(c + 2 * ldc, c2);
  if (rows > 3) vst1q_f32(c + 3 * ldc, c3);
  if (rows > 4) vst1q_f32(c + 4 * ldc, c4);
  if (rows > 5) vst1q_f32(c + 5 * ldc, c5);
}

__attribute__((noinline)) static void tile_1x4(const nt *t) { rows_x4(t, 1); }
__attribute__((noinline)) static void tile_2x4(const nt *t) { rows_x4(t, 2); }
__attribute__((noinline)) static void tile_3x4(const nt *t) { rows_x4(t, 3); }
__attribute__((noinline)) static void tile_4x4(const nt *t) { rows_x4(t, 4); }
__attribute__((noinline)) static void tile_5x4(const nt *t) { rows_x4(t, 5); }
__attribute__((noinline)) static void tile_6x4(const nt *t) { rows_x4(t, 6); }
#else
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
  switch (rows) {
    case 6: tile_6x4(t); break;
    case 5: tile_5x4(t); break;
    case 4: tile_4x4(t); break;
    case 3: tile_3x4(t); break;
    case 2: tile_2x4(t); break;
    default: tile_1x4(t); break;
  }
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
