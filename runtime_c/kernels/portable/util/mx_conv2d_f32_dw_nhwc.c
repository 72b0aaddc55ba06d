#include "mx_conv2d_f32_dw_nhwc.h"

#include "mx_conv2d_f32_taps.h"
#include "mx_conv2d_f32_tiles.h"

/* A chunk of up to 4 output pixels along a row, every channel, 4 channels at a time: the 4 channels' weights of a
 * tap are loaded once for all the chunk's pixels, and a pixel's 4 channels are one load apart from the next tap's.
 * Chunks of more than one pixel lie where the window needs no padding (all taps valid for every pixel); the
 * padded edges run one pixel at a time with the taps that land inside. The chunks stay out of line for the reason
 * of mx_conv2d_f32.c's tiles (-Os spills their pointers when inlined into the row loop). */

typedef mx_conv2d_f32_dw dw;

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
/* The M55's chunk: mx_conv2d_f32_tiles.c (4 channels at a time, the last 1 to 3 in a predicated vector). */
static inline __attribute__((always_inline)) void chunk_body(const dw *t, const int32_t np) {
  mx_conv2d_f32_mve_dw(t, np);
}
#else
/* Channel c alone at the chunk's np pixels (the channels past the last multiple of 4): each tap's weight loaded
 * once for the np pixels, which a 3-channel input (an image) runs on alone. Inlined with np a constant. */
static inline __attribute__((always_inline)) void one_channel(const dw *t, int32_t c, const int32_t np) {
  const int32_t sp = t->x_px, step_kw = t->x_kw;
  const float b = t->bias != NULL ? t->bias[c] : 0.0f;
  float a0 = b, a1 = b, a2 = b, a3 = b;
  const float *xr = t->x + c, *wr = t->w + c * t->w_c;
  for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
    const float *xp = xr;
    for (int32_t kw = 0; kw < t->nkw; ++kw, xp += step_kw) {
      const float v = wr[kw];
      a0 += v * xp[0];
      if (np > 1) a1 += v * xp[sp];
      if (np > 2) a2 += v * xp[2 * sp];
      if (np > 3) a3 += v * xp[3 * sp];
    }
  }
  float *y = t->y + c;
  y[0] = a0;
  if (np > 1) y[t->c] = a1;
  if (np > 2) y[2 * t->c] = a2;
  if (np > 3) y[3 * t->c] = a3;
}

/* Out of line so that the 4-channel loop keeps -Os's registers to itself. */
__attribute__((noinline)) static void past_4_1(const dw *t) {
  for (int32_t c = t->c & ~3; c < t->c; ++c) one_channel(t, c, 1);
}
__attribute__((noinline)) static void past_4_2(const dw *t) {
  for (int32_t c = t->c & ~3; c < t->c; ++c) one_channel(t, c, 2);
}
__attribute__((noinline)) static void past_4_3(const dw *t) {
  for (int32_t c = t->c & ~3; c < t->c; ++c) one_channel(t, c, 3);
}
__attribute__((noinline)) static void past_4_4(const dw *t) {
  for (int32_t c = t->c & ~3; c < t->c; ++c) one_channel(t, c, 4);
}

static inline __attribute__((always_inline)) void channels_past_4(const dw *t, const int32_t np) {
  np == 1 ? past_4_1(t) : np == 2 ? past_4_2(t) : np == 3 ? past_4_3(t) : past_4_4(t);
}

static const float zeros[4] = {0.0f, 0.0f, 0.0f, 0.0f};

/* 4 channels times np pixels in FPU registers: per tap 4 weight loads for up to 16 multiply-adds. */
static inline __attribute__((always_inline)) void chunk_body(const dw *t, const int32_t np) {
  const int32_t so = t->w_c, step_kw = t->x_kw, sp = t->x_px, cs = t->c;
  int32_t c = 0;
  for (; c + 4 <= cs; c += 4) {
    const float *b = t->bias != NULL ? t->bias + c : zeros;
    float a00 = b[0], a01 = b[1], a02 = b[2], a03 = b[3];
    float a10 = a00, a11 = a01, a12 = a02, a13 = a03, a20 = a00, a21 = a01, a22 = a02, a23 = a03;
    float a30 = a00, a31 = a01, a32 = a02, a33 = a03;
    const float *xr = t->x + c, *wr = t->w + c * so;
    for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
      const float *xp = xr, *wp = wr;
      for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
        const float w0 = wp[0], w1 = wp[so], w2 = wp[2 * so], w3 = wp[3 * so];
        a00 += w0 * xp[0], a01 += w1 * xp[1], a02 += w2 * xp[2], a03 += w3 * xp[3];
        if (np > 1) {
          const float *q = xp + sp;
          a10 += w0 * q[0], a11 += w1 * q[1], a12 += w2 * q[2], a13 += w3 * q[3];
        }
        if (np > 2) {
          const float *q = xp + 2 * sp;
          a20 += w0 * q[0], a21 += w1 * q[1], a22 += w2 * q[2], a23 += w3 * q[3];
        }
        if (np > 3) {
          const float *q = xp + 3 * sp;
          a30 += w0 * q[0], a31 += w1 * q[1], a32 += w2 * q[2], a33 += w3 * q[3];
        }
      }
    }
    float *y = t->y + c;
    y[0] = a00, y[1] = a01, y[2] = a02, y[3] = a03;
    if (np > 1) y += cs, y[0] = a10, y[1] = a11, y[2] = a12, y[3] = a13;
    if (np > 2) y += cs, y[0] = a20, y[1] = a21, y[2] = a22, y[3] = a23;
    if (np > 3) y += cs, y[0] = a30, y[1] = a31, y[2] = a32, y[3] = a33;
  }
  if (c < cs) channels_past_4(t, np);
}
#endif

__attribute__((noinline)) static void chunk_1(const dw *t) { chunk_body(t, 1); }
__attribute__((noinline)) static void chunk_2(const dw *t) { chunk_body(t, 2); }
__attribute__((noinline)) static void chunk_3(const dw *t) { chunk_body(t, 3); }
__attribute__((noinline)) static void chunk_4(const dw *t) { chunk_body(t, 4); }

void mx_conv2d_f32_dw_nhwc(const mx_conv2d_f32_shape *s, const float *x, const float *w, const float *bias, float *y,
                           bool backward) {
  const int32_t cs = s->c_in, row_in = s->in_w * cs, row_out = s->out_w * cs;
  const mx_conv_axis ah = {s->in_h, s->out_h, s->k_h, s->stride[0], s->pad[0], s->dil[0], row_in, s->k_w, row_out};
  const mx_conv_axis aw = {s->in_w, s->out_w, s->k_w, s->stride[1], s->pad[1], s->dil[1], cs, 1, cs};
  int32_t lo, hi;
  mx_conv_interior(&aw, &lo, &hi);
  dw t;
  t.bias = bias, t.c = cs;
  t.x_kh = s->dil[0] * row_in, t.x_kw = s->dil[1] * cs, t.x_px = s->stride[1] * cs;
  t.w_c = s->k_h * s->k_w, t.w_kh = s->k_w;
  for (int32_t j = 0; j < s->out_h; ++j) {
    const int32_t oh = backward ? s->out_h - 1 - j : j;
    int32_t kh0, x_h;
    t.nkh = mx_conv_valid_taps(&ah, oh, &kh0, &x_h);
    for (int32_t ow = 0, np; ow < s->out_w; ow += np) {
      int32_t kw0, x_w;
      t.nkw = mx_conv_valid_taps(&aw, ow, &kw0, &x_w);
      t.x = x + x_h + x_w, t.w = w + kh0 * s->k_w + kw0, t.y = y + oh * row_out + ow * cs;
      np = ow >= lo && ow < hi ? (hi - ow < 4 ? hi - ow : 4) : 1;
      switch (np) {
        case 4: chunk_4(&t); break;
        case 3: chunk_3(&t); break;
        case 2: chunk_2(&t); break;
        default: chunk_1(&t); break;
      }
    }
  }
}
