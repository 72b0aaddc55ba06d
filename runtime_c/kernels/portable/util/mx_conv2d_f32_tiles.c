#include "mx_conv2d_f32_tiles.h"

/* The M55's tiles; elsewhere this file is empty (the FPU's are in the files that call them). */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>

/* The direct convolution: the 4 output channels in a vector, their weights (w_oc apart) in one gather per tap, each pixel's input
 * broadcast; the outputs (y_oc apart) in one scatter per pixel. The vector operators take the scalar code's
 * contraction (none under GCC's -std=c11: a multiply and an add, as the FPU's vmla) and MVE rounds as the FPU does:
 * the same bits, but that MVE flushes subnormals to zero. */
static inline uint32x4_t lanes_apart(int32_t step) { return vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)step); }

static inline __attribute__((always_inline)) void conv_4oc_4px(const mx_conv2d_f32_tile *t, const int32_t sp) {
  const uint32x4_t w_off = lanes_apart(t->w_oc);
  const int32_t step_kw = t->x_kw;
  float32x4_t a0 = vld1q_f32(t->bias), a1 = a0, a2 = a0, a3 = a0;
  const float *xc = t->x, *wc = t->w;
  for (int32_t c = 0; c < t->cg; ++c, xc += t->x_c, wc += t->w_c) {
    const float *xr = xc, *wr = wc;
    for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
      const float *xp = xr, *wp = wr;
      for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
        const float32x4_t v = vldrwq_gather_shifted_offset_f32(wp, w_off);
        a0 += xp[0] * v, a1 += xp[sp] * v, a2 += xp[2 * sp] * v, a3 += xp[3 * sp] * v;
      }
    }
  }
  const uint32x4_t y_off = lanes_apart(t->y_oc);
  const int32_t yp = t->y_px;
  vstrwq_scatter_shifted_offset_f32(t->y, y_off, a0);
  vstrwq_scatter_shifted_offset_f32(t->y + yp, y_off, a1);
  vstrwq_scatter_shifted_offset_f32(t->y + 2 * yp, y_off, a2);
  vstrwq_scatter_shifted_offset_f32(t->y + 3 * yp, y_off, a3);
}

/* 4 output channels of one group at 1 pixel */
void mx_conv2d_f32_mve_4oc_1px(const mx_conv2d_f32_tile *t) {
  const uint32x4_t w_off = lanes_apart(t->w_oc);
  const int32_t step_kw = t->x_kw;
  float32x4_t a = vld1q_f32(t->bias);
  const float *xc = t->x, *wc = t->w;
  for (int32_t c = 0; c < t->cg; ++c, xc += t->x_c, wc += t->w_c) {
    const float *xr = xc, *wr = wc;
    for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
      const float *xp = xr, *wp = wr;
      for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
        a += vldrwq_gather_shifted_offset_f32(wp, w_off) * *xp;
      }
    }
  }
  vstrwq_scatter_shifted_offset_f32(t->y, lanes_apart(t->y_oc), a);
}

void mx_conv2d_f32_mve_4oc_4px(const mx_conv2d_f32_tile *t) { conv_4oc_4px(t, t->x_px); }

/* with the pixels' loads immediate offsets from one pointer */
void mx_conv2d_f32_mve_4oc_4px_unit(const mx_conv2d_f32_tile *t) { conv_4oc_4px(t, 1); }

/* 1 output channel (a depthwise one: each group has one) at np pixels along the line, 4 in a vector, nv vectors
 * (the last one's pixels past np masked off): one weight per tap for up to 16 multiply-adds, where the FPU's tile
 * has 4. The pixels' inputs are one load (unit: consecutive) or one gather (x_px apart) per vector; their outputs
 * one scatter (y_px apart) per vector. Rounding as above. */
static inline __attribute__((always_inline)) float32x4_t px_load(const float *x, uint32x4_t off, const bool unit) {
  return unit ? vld1q_f32(x) : vldrwq_gather_shifted_offset_f32(x, off);
}

/* The last vector, its lanes past np zero (and their inputs, which may lie past the tensor, not read). */
static inline __attribute__((always_inline)) float32x4_t px_load_z(const float *x, uint32x4_t off, mve_pred16_t p,
                                                                   const bool unit) {
  return unit ? vldrwq_z_f32(x, p) : vldrwq_gather_shifted_offset_z_f32(x, off, p);
}

static inline __attribute__((always_inline)) void conv_1oc(const mx_conv2d_f32_tile *t, int32_t np, const int nv,
                                                           const bool unit) {
  const int32_t q = unit ? 4 : 4 * t->x_px, step_kw = t->x_kw;
  const uint32x4_t x_off = lanes_apart(t->x_px);
  const mve_pred16_t last = vctp32q((uint32_t)(np - 4 * (nv - 1)));
  float32x4_t a0 = vdupq_n_f32(t->bias[0]), a1 = a0, a2 = a0, a3 = a0;
  const float *xc = t->x, *wc = t->w;
  for (int32_t c = 0; c < t->cg; ++c, xc += t->x_c, wc += t->w_c) {
    const float *xr = xc, *wr = wc;
    for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
      const float *xp = xr, *wp = wr;
      for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
        const float v = *wp;
        if (nv == 1) a0 = vaddq_f32(a0, vmulq_n_f32(px_load_z(xp, x_off, last, unit), v));
        if (nv > 1) a0 = vaddq_f32(a0, vmulq_n_f32(px_load(xp, x_off, unit), v));
        if (nv == 2) a1 = vaddq_f32(a1, vmulq_n_f32(px_load_z(xp + q, x_off, last, unit), v));
        if (nv > 2) a1 = vaddq_f32(a1, vmulq_n_f32(px_load(xp + q, x_off, unit), v));
        if (nv == 3) a2 = vaddq_f32(a2, vmulq_n_f32(px_load_z(xp + 2 * q, x_off, last, unit), v));
        if (nv > 3) a2 = vaddq_f32(a2, vmulq_n_f32(px_load(xp + 2 * q, x_off, unit), v));
        if (nv == 4) a3 = vaddq_f32(a3, vmulq_n_f32(px_load_z(xp + 3 * q, x_off, last, unit), v));
      }
    }
  }
  const mve_pred16_t all = 0xffff, p0 = nv == 1 ? last : all, p1 = nv == 2 ? last : all, p2 = nv == 3 ? last : all;
  const int32_t yq = 4 * t->y_px;
  const uint32x4_t y_off = lanes_apart(t->y_px);
  vstrwq_scatter_shifted_offset_p_f32(t->y, y_off, a0, p0);
  if (nv > 1) vstrwq_scatter_shifted_offset_p_f32(t->y + yq, y_off, a1, p1);
  if (nv > 2) vstrwq_scatter_shifted_offset_p_f32(t->y + 2 * yq, y_off, a2, p2);
  if (nv > 3) vstrwq_scatter_shifted_offset_p_f32(t->y + 3 * yq, y_off, a3, last);
}

__attribute__((noinline)) static void conv_1oc_1v(const mx_conv2d_f32_tile *t, int32_t np) { conv_1oc(t, np, 1, 0); }
__attribute__((noinline)) static void conv_1oc_2v(const mx_conv2d_f32_tile *t, int32_t np) { conv_1oc(t, np, 2, 0); }
__attribute__((noinline)) static void conv_1oc_3v(const mx_conv2d_f32_tile *t, int32_t np) { conv_1oc(t, np, 3, 0); }
__attribute__((noinline)) static void conv_1oc_4v(const mx_conv2d_f32_tile *t, int32_t np) { conv_1oc(t, np, 4, 0); }
__attribute__((noinline)) static void unit_1oc_1v(const mx_conv2d_f32_tile *t, int32_t np) { conv_1oc(t, np, 1, 1); }
__attribute__((noinline)) static void unit_1oc_2v(const mx_conv2d_f32_tile *t, int32_t np) { conv_1oc(t, np, 2, 1); }
__attribute__((noinline)) static void unit_1oc_3v(const mx_conv2d_f32_tile *t, int32_t np) { conv_1oc(t, np, 3, 1); }
__attribute__((noinline)) static void unit_1oc_4v(const mx_conv2d_f32_tile *t, int32_t np) { conv_1oc(t, np, 4, 1); }

void mx_conv2d_f32_mve_1oc(const mx_conv2d_f32_tile *t, int32_t np) {
  const bool unit = t->x_px == 1;
  switch ((np + 3) / 4) {
    case 1: unit ? unit_1oc_1v(t, np) : conv_1oc_1v(t, np); break;
    case 2: unit ? unit_1oc_2v(t, np) : conv_1oc_2v(t, np); break;
    case 3: unit ? unit_1oc_3v(t, np) : conv_1oc_3v(t, np); break;
    default: unit ? unit_1oc_4v(t, np) : conv_1oc_4v(t, np); break;
  }
}

/* The 1x1 product: 4 columns of c in a vector, their 4 rows of bt (ldb apart) in one gather per p, times each of
 * `rows` rows of a (up to 6: 6 accumulators, the gather and a product fill the 8 vector registers), so that a
 * channels-last image row of 5 or 6 pixels is one tile. Rounding as above. */
static inline __attribute__((always_inline)) void rows_x4(const mx_matmul_nt_f32_tile *t, const uint32_t rows) {
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

__attribute__((noinline)) static void tile_1x4(const mx_matmul_nt_f32_tile *t) { rows_x4(t, 1); }
__attribute__((noinline)) static void tile_2x4(const mx_matmul_nt_f32_tile *t) { rows_x4(t, 2); }
__attribute__((noinline)) static void tile_3x4(const mx_matmul_nt_f32_tile *t) { rows_x4(t, 3); }
__attribute__((noinline)) static void tile_4x4(const mx_matmul_nt_f32_tile *t) { rows_x4(t, 4); }
__attribute__((noinline)) static void tile_5x4(const mx_matmul_nt_f32_tile *t) { rows_x4(t, 5); }

void mx_matmul_nt_f32_mve_x4(const mx_matmul_nt_f32_tile *t, uint32_t rows) {
  switch (rows) {
    case 1: tile_1x4(t); break;
    case 2: tile_2x4(t); break;
    case 3: tile_3x4(t); break;
    case 4: tile_4x4(t); break;
    case 5: tile_5x4(t); break;
    default: rows_x4(t, 6); break;
  }
}
/* The 1 to 3 channels past the last multiple of 4 (all of a 3-channel image's), in lanes the predicate keeps: the
 * others load nothing and store nothing. Apart from dw_chunk's loop so that its full vectors carry no predicate. */
static inline __attribute__((always_inline)) void dw_tail(const mx_conv2d_f32_dw *t, const int32_t np) {
  const uint32x4_t off = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)t->w_c);
  const int32_t step_kw = t->x_kw, sp = t->x_px, cs = t->c, c = cs & ~3;
  const mve_pred16_t p = vctp32q((uint32_t)(cs - c));
  float32x4_t a0 = t->bias != NULL ? vld1q_z_f32(t->bias + c, p) : vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0;
  const float *xr = t->x + c, *wr = t->w + c * t->w_c;
  for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
    const float *xp = xr, *wp = wr;
    for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
      const float32x4_t v = vldrwq_gather_shifted_offset_z_f32(wp, off, p);
      a0 += v * vld1q_z_f32(xp, p);
      if (np > 1) a1 += v * vld1q_z_f32(xp + sp, p);
      if (np > 2) a2 += v * vld1q_z_f32(xp + 2 * sp, p);
      if (np > 3) a3 += v * vld1q_z_f32(xp + 3 * sp, p);
    }
  }
  float *y = t->y + c;
  vst1q_p_f32(y, a0, p);
  if (np > 1) vst1q_p_f32(y + cs, a1, p);
  if (np > 2) vst1q_p_f32(y + 2 * cs, a2, p);
  if (np > 3) vst1q_p_f32(y + 3 * cs, a3, p);
}

/* The channels-last depthwise convolution: 4 channels of a pixel in a vector, a tap's 4 weights (w_c apart) in one
 * gather for the chunk's np pixels. Rounding as above. */
static inline __attribute__((always_inline)) void dw_chunk(const mx_conv2d_f32_dw *t, const int32_t np) {
  const uint32x4_t off = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)t->w_c);
  const int32_t step_kw = t->x_kw, sp = t->x_px, cs = t->c;
  for (int32_t c = 0; c + 4 <= cs; c += 4) {
    float32x4_t a0 = t->bias != NULL ? vld1q_f32(t->bias + c) : vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0;
    const float *xr = t->x + c, *wr = t->w + c * t->w_c;
    for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
      const float *xp = xr, *wp = wr;
      for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
        const float32x4_t v = vldrwq_gather_shifted_offset_f32(wp, off);
        a0 += v * vld1q_f32(xp);
        if (np > 1) a1 += v * vld1q_f32(xp + sp);
        if (np > 2) a2 += v * vld1q_f32(xp + 2 * sp);
        if (np > 3) a3 += v * vld1q_f32(xp + 3 * sp);
      }
    }
    float *y = t->y + c;
    vst1q_f32(y, a0);
    if (np > 1) vst1q_f32(y + cs, a1);
    if (np > 2) vst1q_f32(y + 2 * cs, a2);
    if (np > 3) vst1q_f32(y + 3 * cs, a3);
  }
}

__attribute__((noinline)) static void dw_1(const mx_conv2d_f32_dw *t) { dw_chunk(t, 1); }
__attribute__((noinline)) static void dw_2(const mx_conv2d_f32_dw *t) { dw_chunk(t, 2); }
__attribute__((noinline)) static void dw_3(const mx_conv2d_f32_dw *t) { dw_chunk(t, 3); }

__attribute__((noinline)) static void tail_1(const mx_conv2d_f32_dw *t) { dw_tail(t, 1); }
__attribute__((noinline)) static void tail_2(const mx_conv2d_f32_dw *t) { dw_tail(t, 2); }
__attribute__((noinline)) static void tail_3(const mx_conv2d_f32_dw *t) { dw_tail(t, 3); }
__attribute__((noinline)) static void tail_4(const mx_conv2d_f32_dw *t) { dw_tail(t, 4); }

void mx_conv2d_f32_mve_dw(const mx_conv2d_f32_dw *t, int32_t np) {
  switch (np) {
    case 1: dw_1(t); break;
    case 2: dw_2(t); break;
    case 3: dw_3(t); break;
    default: dw_chunk(t, 4); break;
  }
  if (t->c % 4 == 0) return;
  switch (np) { /* out of line: inlined into the chunks, the tail slowed their full vectors */
    case 1: tail_1(t); break;
    case 2: tail_2(t); break;
    case 3: tail_3(t); break;
    default: tail_4(t); break;
  }
}
/* Depthwise 3x3 lines (mx_conv2d_f32_dw_lines.c), the pixels between their padded ends. One kernel row's 3 taps (1
 * apart) into the sums of 8 pixels: 4 in a (1 apart), the next 4 in b; a vector load per tap and 4 pixels. Rounding
 * as above. */
static inline __attribute__((always_inline)) void row_taps(float32x4_t *a, float32x4_t *b, const float *x,
                                                           const float *w) {
  const float w0 = w[0], w1 = w[1], w2 = w[2];
  *a = vaddq_f32(*a, vmulq_n_f32(vld1q_f32(x), w0));
  *b = vaddq_f32(*b, vmulq_n_f32(vld1q_f32(x + 4), w0));
  *a = vaddq_f32(*a, vmulq_n_f32(vld1q_f32(x + 1), w1));
  *b = vaddq_f32(*b, vmulq_n_f32(vld1q_f32(x + 5), w1));
  *a = vaddq_f32(*a, vmulq_n_f32(vld1q_f32(x + 2), w2));
  *b = vaddq_f32(*b, vmulq_n_f32(vld1q_f32(x + 6), w2));
}

/* Along a row: 8 pixels per pass, then 4 at a time, the last vector's lanes past them masked off (their inputs,
 * which may lie past the tensor, not read). */
void mx_conv2d_f32_mve_line_rows(const mx_conv2d_f32_line *l, const float *x, float *y, int32_t count) {
  const int32_t nc = l->nc, xc = l->x_c, wc = l->w_c, ya = l->y_a;
  const uint32x4_t yo = lanes_apart(ya);
  int32_t j = 0;
  for (; j + 8 <= count; j += 8) {
    float32x4_t a = vdupq_n_f32(l->bias), b = a;
    const float *xr = x + j, *wr = l->w;
    for (int32_t c = 0; c < nc; ++c, xr += xc, wr += wc) row_taps(&a, &b, xr, wr);
    vstrwq_scatter_shifted_offset_f32(y + j * ya, yo, a);
    vstrwq_scatter_shifted_offset_f32(y + (j + 4) * ya, yo, b);
  }
  for (; j < count; j += 4) {
    const mve_pred16_t p = vctp32q((uint32_t)(count - j));
    float32x4_t a = vdupq_n_f32(l->bias);
    const float *xr = x + j, *wr = l->w;
    for (int32_t c = 0; c < nc; ++c, xr += xc, wr += wc) {
      a = vaddq_f32(a, vmulq_n_f32(vldrwq_z_f32(xr, p), wr[0]));
      a = vaddq_f32(a, vmulq_n_f32(vldrwq_z_f32(xr + 1, p), wr[1]));
      a = vaddq_f32(a, vmulq_n_f32(vldrwq_z_f32(xr + 2, p), wr[2]));
    }
    vstrwq_scatter_shifted_offset_p_f32(y + j * ya, yo, a, p);
  }
}

/* 4 pixels down a column (x_a apart) from x: one gather per tap, kernel rows in order and each row's nc taps across;
 * `masked`: lanes off in p are not read. */
static inline __attribute__((always_inline)) float32x4_t col_sum(const mx_conv2d_f32_line *l, const float *x,
                                                                 uint32x4_t xo, mve_pred16_t p, const bool masked,
                                                                 const int nc) {
  float32x4_t a = vdupq_n_f32(l->bias);
  const float *wr = l->w;
  /* unrolled: -O2 keeps the loops, 7 instructions a tap instead of 3 */
#pragma GCC unroll 3
  for (int32_t r = 0; r < 3; ++r, x += l->x_a, wr += l->w_a) {
#pragma GCC unroll 3
    for (int32_t c = 0; c < nc; ++c) {
      const float32x4_t v =
          masked ? vldrwq_gather_shifted_offset_z_f32(x + c, xo, p) : vldrwq_gather_shifted_offset_f32(x + c, xo);
      a = vaddq_f32(a, vmulq_n_f32(v, wr[c]));
    }
  }
  return a;
}

/* Down a column, 4 pixels at a time, the last vector masked as above. */
static inline __attribute__((always_inline)) void cols_body(const mx_conv2d_f32_line *l, const float *x, float *y,
                                                            int32_t count, const int nc) {
  const int32_t sp = l->x_a, ya = l->y_a;
  const uint32x4_t xo = lanes_apart(sp), yo = lanes_apart(ya);
  int32_t j = 0;
  for (; j + 4 <= count; j += 4) {
    vstrwq_scatter_shifted_offset_f32(y + j * ya, yo, col_sum(l, x + j * sp, xo, 0, false, nc));
  }
  if (j < count) {
    const mve_pred16_t p = vctp32q((uint32_t)(count - j));
    vstrwq_scatter_shifted_offset_p_f32(y + j * ya, yo, col_sum(l, x + j * sp, xo, p, true, nc), p);
  }
}

__attribute__((noinline)) static void cols_2(const mx_conv2d_f32_line *l, const float *x, float *y, int32_t n) {
  cols_body(l, x, y, n, 2);
}
__attribute__((noinline)) static void cols_3(const mx_conv2d_f32_line *l, const float *x, float *y, int32_t n) {
  cols_body(l, x, y, n, 3);
}

void mx_conv2d_f32_mve_line_cols(const mx_conv2d_f32_line *l, const float *x, float *y, int32_t count) {
  l->nc > 2 ? cols_3(l, x, y, count) : cols_2(l, x, y, count);
}
#endif
