/* Whole depthwise 3x3 lines (mx_conv2d_f32_line.h): linked by a model's firmware only where it may run them. */
#include <stdbool.h>

#include "mx_conv2d_f32_line.h"
#include "mx_conv2d_f32_tiles.h"

/* Weights are named w<kernel row><column>. The padded pixels at a line's ends are scalar code on every core; the
 * pixels between them are the M55's vectors below, else the FPU's scalar chunks in the line functions. */

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
/* The M55's: mx_conv2d_f32_tiles.c, at -O2. */
static const bool vectors = true;

static void rows_vector(const mx_conv2d_f32_line *l, const float *x, float *y, int32_t count) {
  mx_conv2d_f32_mve_line_rows(l, x, y, count);
}

static void cols_vector(const mx_conv2d_f32_line *l, const float *x, float *y, int32_t count) {
  mx_conv2d_f32_mve_line_cols(l, x, y, count);
}
#else
static const bool vectors = false;

static void rows_vector(const mx_conv2d_f32_line *l, const float *x, float *y, int32_t count) {
  (void)l, (void)x, (void)y, (void)count;
}

static void cols_vector(const mx_conv2d_f32_line *l, const float *x, float *y, int32_t count) {
  (void)l, (void)x, (void)y, (void)count;
}
#endif

/* Lines along rows: for each kernel row inside, its 6 inputs under 4 pixels, then their 12 products. One body for 2
 * and 3 rows: the third is one branch per 4 pixels. */
static void line_rows(const mx_conv2d_f32_line *l) {
  const int32_t st = MX_CONV2D_F32_LINE_MAX_STRIDE == 1 ? 1 : l->stride;
  const int32_t nc = l->nc;
  const float *w = l->w;
  const int32_t wc = l->w_c, ya = l->y_a;
  const float w00 = w[0], w01 = w[1], w02 = w[2], w10 = w[wc], w11 = w[wc + 1], w12 = w[wc + 2];
  const float w20 = nc > 2 ? w[2 * wc] : 0.0f, w21 = nc > 2 ? w[2 * wc + 1] : 0.0f;
  const float w22 = nc > 2 ? w[2 * wc + 2] : 0.0f, b = l->bias;
  const float *x0 = l->x, *x1 = x0 + l->x_c, *x2 = nc > 2 ? x1 + l->x_c : x1;
  float *y = l->y;
  if (l->pad) { /* the first pixel: taps 1 and 2 of each row, on inputs 0 and 1 */
    float a = b;
    a += w01 * x0[0], a += w02 * x0[1], a += w11 * x1[0], a += w12 * x1[1];
    if (nc > 2) a += w21 * x2[0], a += w22 * x2[1];
    *y = a, y += ya;
    x0 += st - 1, x1 += st - 1, x2 += st - 1; /* the next window's start: input 0 at stride 1, 1 at stride 2 */
  }
  int32_t j = 0;
  const int32_t inner = l->n - l->pad - l->trail;
  if (vectors) { /* at stride 1 (MX_CONV2D_F32_LINE_MAX_STRIDE) */
    rows_vector(l, x0, y, inner);
    j = inner, x0 += inner, x1 += inner, x2 += inner, y += inner * ya;
  }
  for (; !vectors && st == 1 && j + 4 <= inner; j += 4, x0 += 4, x1 += 4, x2 += 4, y += 4 * ya) {
    float a0 = b, a1 = b, a2 = b, a3 = b;
    float u0 = x0[0], u1 = x0[1], u2 = x0[2], u3 = x0[3], u4 = x0[4], u5 = x0[5];
    a0 += w00 * u0, a0 += w01 * u1, a0 += w02 * u2, a1 += w00 * u1, a1 += w01 * u2, a1 += w02 * u3;
    a2 += w00 * u2, a2 += w01 * u3, a2 += w02 * u4, a3 += w00 * u3, a3 += w01 * u4, a3 += w02 * u5;
    u0 = x1[0], u1 = x1[1], u2 = x1[2], u3 = x1[3], u4 = x1[4], u5 = x1[5];
    a0 += w10 * u0, a0 += w11 * u1, a0 += w12 * u2, a1 += w10 * u1, a1 += w11 * u2, a1 += w12 * u3;
    a2 += w10 * u2, a2 += w11 * u3, a2 += w12 * u4, a3 += w10 * u3, a3 += w11 * u4, a3 += w12 * u5;
    if (nc > 2) {
      u0 = x2[0], u1 = x2[1], u2 = x2[2], u3 = x2[3], u4 = x2[4], u5 = x2[5];
      a0 += w20 * u0, a0 += w21 * u1, a0 += w22 * u2, a1 += w20 * u1, a1 += w21 * u2, a1 += w22 * u3;
      a2 += w20 * u2, a2 += w21 * u3, a2 += w22 * u4, a3 += w20 * u3, a3 += w21 * u4, a3 += w22 * u5;
    }
    y[0] = a0, y[ya] = a1, y[2 * ya] = a2, y[3 * ya] = a3;
  }
  for (; j < inner; ++j, x0 += st, x1 += st, x2 += st, y += ya) {
    float a = b;
    a += w00 * x0[0], a += w01 * x0[1], a += w02 * x0[2], a += w10 * x1[0], a += w11 * x1[1], a += w12 * x1[2];
    if (nc > 2) a += w20 * x2[0], a += w21 * x2[1], a += w22 * x2[2];
    *y = a;
  }
  if (l->trail) { /* the last pixel: taps 0 and 1 of each row, on the last two inputs */
    float a = b;
    a += w00 * x0[0], a += w01 * x0[1], a += w10 * x1[0], a += w11 * x1[1];
    if (nc > 2) a += w20 * x2[0], a += w21 * x2[1];
    *y = a;
  }
}

/* One input row's nc inputs into a pixel's sum with kernel row r's weights (its taps across, in order). */
#define ROW_TAPS(acc, r) ((acc) += r##0 * v0, (acc) += r##1 * v1, nc > 2 ? (void)((acc) += r##2 * v2) : (void)0)

/* Lines down columns: input rows in order, each row's nc inputs loaded once for the (up to 3) pixels whose window
 * holds it, so every pixel still gets its kernel rows in order. nc is a constant: the body is inlined for 2 and 3,
 * since a branch per input row would cost a sixth more. */
static inline __attribute__((always_inline)) void cols(const mx_conv2d_f32_line *l, const int nc) {
  const float *w = l->w;
  const int32_t wa = l->w_a, sp = l->x_a, ya = l->y_a;
  const int32_t st = MX_CONV2D_F32_LINE_MAX_STRIDE == 1 ? 1 : l->stride;
  const float w00 = w[0], w01 = w[1], w02 = nc > 2 ? w[2] : 0.0f, w10 = w[wa], w11 = w[wa + 1];
  const float w12 = nc > 2 ? w[wa + 2] : 0.0f, w20 = w[2 * wa], w21 = w[2 * wa + 1];
  const float w22 = nc > 2 ? w[2 * wa + 2] : 0.0f, b = l->bias;
  const float *x = l->x;
  float *y = l->y;
  float v0, v1, v2 = 0.0f;
#define LOAD(p) (v0 = (p)[0], v1 = (p)[1], nc > 2 ? (void)(v2 = (p)[2]) : (void)0)
  if (l->pad) { /* the first pixel: kernel rows 1 and 2, on input rows 0 and 1 */
    float a = b;
    LOAD(x), ROW_TAPS(a, w1);
    LOAD(x + sp), ROW_TAPS(a, w2);
    *y = a, y += ya;
    x += (st - 1) * sp; /* the next window's start: input row 0 at stride 1, 1 at stride 2 */
  }
  int32_t j = 0;
  const int32_t inner = l->n - l->pad - l->trail;
  if (vectors) { /* at stride 1, as above */
    cols_vector(l, x, y, inner);
    j = inner, x += inner * sp, y += inner * ya;
  }
  for (; !vectors && st == 1 && j + 4 <= inner; j += 4, x += 4 * sp, y += 4 * ya) {
    float a0 = b, a1 = b, a2 = b, a3 = b;
    LOAD(x), ROW_TAPS(a0, w0);
    LOAD(x + sp), ROW_TAPS(a0, w1), ROW_TAPS(a1, w0);
    LOAD(x + 2 * sp), ROW_TAPS(a0, w2), ROW_TAPS(a1, w1), ROW_TAPS(a2, w0);
    LOAD(x + 3 * sp), ROW_TAPS(a1, w2), ROW_TAPS(a2, w1), ROW_TAPS(a3, w0);
    LOAD(x + 4 * sp), ROW_TAPS(a2, w2), ROW_TAPS(a3, w1);
    LOAD(x + 5 * sp), ROW_TAPS(a3, w2);
    y[0] = a0, y[ya] = a1, y[2 * ya] = a2, y[3 * ya] = a3;
  }
  for (; j < inner; ++j, x += st * sp, y += ya) {
    float a = b;
    LOAD(x), ROW_TAPS(a, w0);
    LOAD(x + sp), ROW_TAPS(a, w1);
    LOAD(x + 2 * sp), ROW_TAPS(a, w2);
    *y = a;
  }
  if (l->trail) { /* the last pixel: kernel rows 0 and 1, on the last two input rows */
    float a = b;
    LOAD(x), ROW_TAPS(a, w0);
    LOAD(x + sp), ROW_TAPS(a, w1);
    *y = a;
  }
#undef LOAD
}
#undef ROW_TAPS

__attribute__((noinline)) static void cols_2(const mx_conv2d_f32_line *l) { cols(l, 2); }
__attribute__((noinline)) static void cols_3(const mx_conv2d_f32_line *l) { cols(l, 3); }

static void line_cols(const mx_conv2d_f32_line *l) { l->nc > 2 ? cols_3(l) : cols_2(l); }

void mx_conv2d_f32_dw_line(const mx_conv2d_f32_line *l, bool along_w) { along_w ? line_rows(l) : line_cols(l); }
