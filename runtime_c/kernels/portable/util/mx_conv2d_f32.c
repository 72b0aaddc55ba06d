#include "mx_conv2d_f32.h"

#include "mx_conv2d_f32_line.h"
#include "mx_conv2d_f32_dw_nhwc.h"
#include "mx_conv2d_f32_taps.h"
#include "mx_conv2d_f32_tiles.h"
#include "mx_matmul_f32.h"
#include "mx_matmul_nt_f32.h"

/* Direct convolution in register tiles: 4 (or 1) output channels times 4 (or 1) output pixels on one
 * line, accumulated over (input channel, kernel row, kernel column) in FPU registers. A tap of the 4x4
 * tile costs 8 loads for 16 multiply-adds instead of a load, a bounds check and a store per multiply-add.
 * Padding stays outside the tiles: a tile gets only the kernel rows and columns that land inside the input
 * for all of its pixels, so its loops carry no bounds checks. The tiles stay out of line: inlined into the
 * driver's loop nest, -Os would spill far more of their pointers inside the innermost loop. */

typedef mx_conv2d_f32_tile tile;

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
/* The MVE tiles: mx_conv2d_f32_tiles.c. */
__attribute__((noinline)) static void tile_4oc_4px(const tile *t) { mx_conv2d_f32_mve_4oc_4px(t); }

__attribute__((noinline)) static void tile_4oc_4px_unit(const tile *t) { mx_conv2d_f32_mve_4oc_4px_unit(t); }

__attribute__((noinline)) static void tile_4oc_1px(const tile *t) { mx_conv2d_f32_mve_4oc_1px(t); }

/* Pixels of the next 1-channel tile, where `room` (at least 4) interior ones are left on the line: up to 16, in
 * vectors of 4 (the last one's lanes past them masked off). */
static int32_t one_oc_step(int32_t room) { return room < MX_CONV2D_F32_MVE_1OC_PX ? room : MX_CONV2D_F32_MVE_1OC_PX; }

static void tile_1oc_npx(const tile *t, int32_t np) { mx_conv2d_f32_mve_1oc(t, np); }

/* Pixels of a 1-channel tile where 2 or 3 interior ones are left: all of them, in one masked vector. */
static int32_t one_oc_tail(int32_t room) { return room; }
#else
/* 4 output channels of one group at 4 pixels `sp` input elements apart. Inlined into two callers: with
 * sp a constant 1 (stride-1 rows, the common case) the 4 pixel loads share one pointer with immediate
 * offsets, which leaves -Os enough core registers for the innermost loop. */
static inline __attribute__((always_inline)) void tile_4oc_4px_body(const tile *t, const int32_t sp) {
  const int32_t so = t->w_oc, step_kw = t->x_kw;
  const float *bias = t->bias;
  float a00 = bias[0], a01 = a00, a02 = a00, a03 = a00, a10 = bias[1], a11 = a10, a12 = a10, a13 = a10;
  float a20 = bias[2], a21 = a20, a22 = a20, a23 = a20, a30 = bias[3], a31 = a30, a32 = a30, a33 = a30;
  const float *xc = t->x, *wc = t->w;
  for (int32_t c = 0; c < t->cg; ++c, xc += t->x_c, wc += t->w_c) {
    const float *xr = xc, *wr = wc;
    for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
      const float *xp = xr, *wp = wr;
      for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
        float x0 = xp[0], x1 = xp[sp], x2 = xp[2 * sp], x3 = xp[3 * sp];
        float v = wp[0];
        a00 += v * x0, a01 += v * x1, a02 += v * x2, a03 += v * x3;
        v = wp[so];
        a10 += v * x0, a11 += v * x1, a12 += v * x2, a13 += v * x3;
        v = wp[2 * so];
        a20 += v * x0, a21 += v * x1, a22 += v * x2, a23 += v * x3;
        v = wp[3 * so];
        a30 += v * x0, a31 += v * x1, a32 += v * x2, a33 += v * x3;
      }
    }
  }
  const int32_t yp = t->y_px;
  float *y = t->y;
  y[0] = a00, y[yp] = a01, y[2 * yp] = a02, y[3 * yp] = a03;
  y += t->y_oc;
  y[0] = a10, y[yp] = a11, y[2 * yp] = a12, y[3 * yp] = a13;
  y += t->y_oc;
  y[0] = a20, y[yp] = a21, y[2 * yp] = a22, y[3 * yp] = a23;
  y += t->y_oc;
  y[0] = a30, y[yp] = a31, y[2 * yp] = a32, y[3 * yp] = a33;
}

/* 4 output channels of one group at 1 pixel */
__attribute__((noinline)) static void tile_4oc_1px(const tile *t) {
  const int32_t so = t->w_oc, step_kw = t->x_kw;
  float a0 = t->bias[0], a1 = t->bias[1], a2 = t->bias[2], a3 = t->bias[3];
  const float *xc = t->x, *wc = t->w;
  for (int32_t c = 0; c < t->cg; ++c, xc += t->x_c, wc += t->w_c) {
    const float *xr = xc, *wr = wc;
    for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
      const float *xp = xr, *wp = wr;
      for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
        float v = *xp;
        a0 += wp[0] * v, a1 += wp[so] * v, a2 += wp[2 * so] * v, a3 += wp[3 * so] * v;
      }
    }
  }
  float *y = t->y;
  y[0] = a0, y[t->y_oc] = a1, y[2 * t->y_oc] = a2, y[3 * t->y_oc] = a3;
}

__attribute__((noinline)) static void tile_4oc_4px(const tile *t) { tile_4oc_4px_body(t, t->x_px); }

__attribute__((noinline)) static void tile_4oc_4px_unit(const tile *t) { tile_4oc_4px_body(t, 1); }

/* 1 output channel (of a depthwise convolution, say) at np (2, 4 or 8) pixels `sp` input elements apart: a weight
 * load per tap for np multiply-adds. Inlined with sp a constant 1 or 2 (NCHW lines at stride 1 and 2), the pixels'
 * loads are immediate offsets from one pointer. */
static inline __attribute__((always_inline)) void tile_1oc_body(const tile *t, const int32_t sp, const int np) {
  const int32_t step_kw = t->x_kw;
  float a0 = t->bias[0], a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  const float *xc = t->x, *wc = t->w;
  for (int32_t c = 0; c < t->cg; ++c, xc += t->x_c, wc += t->w_c) {
    const float *xr = xc, *wr = wc;
    for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
      const float *xp = xr, *wp = wr;
      for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
        const float v = *wp;
        a0 += v * xp[0], a1 += v * xp[sp];
        if (np > 2) a2 += v * xp[2 * sp], a3 += v * xp[3 * sp];
        if (np > 4) a4 += v * xp[4 * sp], a5 += v * xp[5 * sp], a6 += v * xp[6 * sp], a7 += v * xp[7 * sp];
      }
    }
  }
  const int32_t yp = t->y_px;
  float *y = t->y;
  y[0] = a0, y[yp] = a1;
  if (np > 2) y[2 * yp] = a2, y[3 * yp] = a3;
  if (np > 4) y += 4 * yp, y[0] = a4, y[yp] = a5, y[2 * yp] = a6, y[3 * yp] = a7;
}

__attribute__((noinline)) static void tile_1oc_2px(const tile *t) { tile_1oc_body(t, t->x_px, 2); }
__attribute__((noinline)) static void tile_1oc_4px(const tile *t) { tile_1oc_body(t, t->x_px, 4); }
__attribute__((noinline)) static void tile_1oc_4px_unit(const tile *t) { tile_1oc_body(t, 1, 4); }
__attribute__((noinline)) static void tile_1oc_8px(const tile *t) { tile_1oc_body(t, t->x_px, 8); }
__attribute__((noinline)) static void tile_1oc_8px_unit(const tile *t) { tile_1oc_body(t, 1, 8); }
__attribute__((noinline)) static void tile_1oc_8px_two(const tile *t) { tile_1oc_body(t, 2, 8); }

/* Pixels of the next 1-channel tile, where `room` (at least 4) interior ones are left on the line: 8, else 4. */
static int32_t one_oc_step(int32_t room) { return room >= 8 ? 8 : 4; }

/* Pixels of a 1-channel tile where 2 or 3 interior ones are left: 2 (the third, if any, alone). */
static int32_t one_oc_tail(int32_t room) { return room >= 2 ? 2 : 1; }

static void tile_1oc_npx(const tile *t, int32_t np) {
  if (np == 2) {
    tile_1oc_2px(t);
  } else if (np == 4) {
    t->x_px == 1 ? tile_1oc_4px_unit(t) : tile_1oc_4px(t);
  } else {
    t->x_px == 1 ? tile_1oc_8px_unit(t) : t->x_px == 2 ? tile_1oc_8px_two(t) : tile_1oc_8px(t);
  }
}
#endif

/* 4 output channels of 4 consecutive groups (one output channel per group, e.g. depthwise) at 1 pixel */
__attribute__((noinline)) static void tile_4g_1px(const tile *t) {
  const int32_t so = t->w_oc, sx = t->x_oc, step_kw = t->x_kw;
  float a0 = t->bias[0], a1 = t->bias[1], a2 = t->bias[2], a3 = t->bias[3];
  const float *xc = t->x, *wc = t->w;
  for (int32_t c = 0; c < t->cg; ++c, xc += t->x_c, wc += t->w_c) {
    const float *xr = xc, *wr = wc;
    for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
      const float *xp = xr, *wp = wr;
      for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
        a0 += wp[0] * xp[0], a1 += wp[so] * xp[sx], a2 += wp[2 * so] * xp[2 * sx], a3 += wp[3 * so] * xp[3 * sx];
      }
    }
  }
  float *y = t->y;
  y[0] = a0, y[t->y_oc] = a1, y[2 * t->y_oc] = a2, y[3 * t->y_oc] = a3;
}

/* 1 output channel at 1 pixel */
__attribute__((noinline)) static void tile_1oc_1px(const tile *t) {
  const int32_t step_kw = t->x_kw;
  float acc = t->bias[0];
  const float *xc = t->x, *wc = t->w;
  for (int32_t c = 0; c < t->cg; ++c, xc += t->x_c, wc += t->w_c) {
    const float *xr = xc, *wr = wc;
    for (int32_t kh = 0; kh < t->nkh; ++kh, xr += t->x_kh, wr += t->w_kh) {
      const float *xp = xr, *wp = wr;
      for (int32_t kw = t->nkw; kw > 0; --kw, xp += step_kw, ++wp) {
        acc += *wp * *xp;
      }
    }
  }
  *t->y = acc;
}

static const float zeros[4] = {0.0f, 0.0f, 0.0f, 0.0f};

/* How a call's loops are laid over the tensors: the axes (u across lines, v along them), the output indices of v
 * whose windows stay inside the input, and the channels per group. */
typedef struct nest {
  mx_conv_axis ah, aw;
  const mx_conv_axis *u, *v;
  bool along_w, line3; /* line3: a depthwise 3x3 at stride 1 or 2, undilated, NCHW, pad 0 or 1 along lines */
  int32_t v_lo, v_hi, cg, og;
} nest;

static void nest_init(nest *p, const mx_conv2d_f32_shape *s, const mx_conv2d_f32_layout *l, bool rows) {
  p->ah = (mx_conv_axis){s->in_h, s->out_h, s->k_h, s->stride[0], s->pad[0], s->dil[0], l->x_row, s->k_w, l->y_row};
  p->aw = (mx_conv_axis){s->in_w, s->out_w, s->k_w, s->stride[1], s->pad[1], s->dil[1], l->x_px, 1, l->y_px};
  int32_t h_lo, h_hi, w_lo, w_hi;
  mx_conv_interior(&p->ah, &h_lo, &h_hi);
  mx_conv_interior(&p->aw, &w_lo, &w_hi);
  p->along_w = rows || w_hi - w_lo >= h_hi - h_lo; /* in row order, lines are output rows */
  p->u = p->along_w ? &p->ah : &p->aw, p->v = p->along_w ? &p->aw : &p->ah;
  p->v_lo = p->along_w ? w_lo : h_lo, p->v_hi = p->along_w ? w_hi : h_hi;
  p->cg = s->c_in / s->groups, p->og = s->c_out / s->groups;
  const bool nchw = l->x_px == 1 && l->x_row == s->in_w; /* the line's pixels, or its taps across, 1 apart */
  const mx_conv_axis *v = p->v;
  p->line3 = mx_conv2d_f32_dw_line != NULL && p->cg == 1 && p->og == 1 && s->k_h == 3 && s->k_w == 3 &&
             s->stride[0] <= MX_CONV2D_F32_LINE_MAX_STRIDE && s->stride[1] <= MX_CONV2D_F32_LINE_MAX_STRIDE &&
             s->dil[0] == 1 && s->dil[1] == 1 && nchw && (v->pad == 0 || v->pad == 1) && v->out >= 4;
}

/* Output channels [o, o + n) of line iu, whose nu (2 or 3) cross taps inside start at xu, wu; yu: its output. */
static void dw_lines(const nest *p, const tile *t, const float *xu, const float *wu, float *yu, int32_t n, int32_t nu) {
  const mx_conv_axis *u = p->u, *v = p->v;
  /* the last window reaches past the last input (by one: the kernel is 3 and the padding at most 1) */
  const int32_t trail = v->stride * (v->out - 1) - v->pad + 2 > v->in - 1;
  for (int32_t i = 0; i < n; ++i) {
    const mx_conv2d_f32_line l = {
        xu + i * t->x_oc, wu + i * t->w_oc, yu + i * t->y_oc, t->bias[i], v->out,   v->pad, trail, v->stride, nu,
        v->x_step,        u->x_step,        v->w_step,        u->w_step,  v->y_step};
    mx_conv2d_f32_dw_line(&l, p->along_w);
  }
}

/* Output channels [o, o + n) (n 4 or 1) along line iu: tiles of 4 pixels where the windows stay inside (of up to
 * 16 on the M55, 8 elsewhere, for one output channel, as depthwise convolutions have: one_oc_step). */
static void block_line(const nest *p, tile t, const float *x, const float *w, const float *bias, float *y, int32_t o,
                       int32_t n, int32_t iu) {
  const int32_t g = o / p->og;
  const float *xg = x + (size_t)g * (size_t)t.x_c * (size_t)p->cg, *wo = w + (size_t)o * (size_t)t.w_oc;
  t.bias = bias != NULL ? bias + o : zeros;
  int32_t u0 = 0, u_off = 0, nu = mx_conv_valid_taps(p->u, iu, &u0, &u_off);
  const float *xu = xg + u_off, *wu = wo + u0 * p->u->w_step;
  float *yu = y + (size_t)o * (size_t)t.y_oc + iu * p->u->y_step;
  const mx_conv_axis *v = p->v;
  if (p->line3 && nu >= 2) {
    dw_lines(p, &t, xu, wu, yu, n, nu);
    return;
  }
  for (int32_t iv = 0; iv < v->out;) {
    int32_t v0 = 0, v_off = 0, nv = mx_conv_valid_taps(v, iv, &v0, &v_off);
    t.nkh = p->along_w ? nu : nv, t.nkw = p->along_w ? nv : nu;
    t.x = xu + v_off, t.w = wu + v0 * v->w_step, t.y = yu + iv * v->y_step;
    int32_t step = 1;
    if (iv >= p->v_lo && p->v_hi - iv >= 4) {
      step = 4;
      if (n == 4 && p->og > 1 && t.x_px == 1) {
        tile_4oc_4px_unit(&t);
      } else if (n == 4 && p->og > 1) {
        tile_4oc_4px(&t);
      } else {
        step = one_oc_step(p->v_hi - iv);
        tile t1 = t;
        for (int32_t i = 0; i < n; ++i, t1.x += t.x_oc, t1.w += t.w_oc, t1.y += t.y_oc, ++t1.bias) {
          tile_1oc_npx(&t1, step);
        }
      }
    } else if (n == 1 && iv >= p->v_lo && p->v_hi - iv >= 2) {
      /* a lone channel's last 2 or 3 interior pixels on the line: one weight load for them (4 channels' take
       * tile_4g_1px, as cheap per product) */
      step = one_oc_tail(p->v_hi - iv);
      tile_1oc_npx(&t, step);
    } else if (n == 4) {
      if (p->og > 1) {
        tile_4oc_1px(&t);
      } else {
        tile_4g_1px(&t);
      }
    } else {
      tile_1oc_1px(&t);
    }
    iv += step;
  }
}

/* Channels in a block from output channel o on: 4 of one group, or of 4 groups when each group has one. */
static int32_t block_width(const nest *p, int32_t c_out, int32_t o) {
  const int32_t in_group = p->og - o % p->og;
  return p->og == 1 ? (c_out - o >= 4 ? 4 : 1) : (in_group >= 4 ? 4 : 1);
}

/* The general path: any kernel, stride, padding, dilation, grouping and layout. Pixels run along lines of the
 * axis with more interior outputs, so narrow maps (KWS's 5 columns) still get 4-pixel tiles. Each output
 * element sees the same float operations in every order (bias, then each valid tap's product, kernel row by
 * row), so every order gives the same bits. */
static void conv_direct(const mx_conv2d_f32_shape *s, const mx_conv2d_f32_layout *l, const float *x, const float *w,
                        const float *bias, float *y, mx_conv2d_f32_order order) {
  const bool rows = order == MX_CONV_ROWS || order == MX_CONV_ROWS_BACKWARD;
  const bool backward = order == MX_CONV_PLANES_BACKWARD || order == MX_CONV_ROWS_BACKWARD;
  nest p;
  nest_init(&p, s, l, rows || order != MX_CONV_FAST);
  tile t;
  t.cg = p.cg;
  t.x_c = l->x_c, t.x_kh = s->dil[0] * l->x_row, t.x_kw = s->dil[1] * l->x_px;
  t.x_px = p.v->stride * p.v->x_step, t.x_oc = p.cg * t.x_c;
  t.w_oc = p.cg * s->k_h * s->k_w, t.w_c = s->k_h * s->k_w, t.w_kh = s->k_w;
  t.y_oc = l->y_c, t.y_px = p.v->y_step;
  const int32_t lines = p.u->out;
  if (rows) { /* a whole output row, every channel, then the next: NHWC rows lie one after another */
    for (int32_t j = 0; j < lines; ++j) {
      const int32_t iu = backward ? lines - 1 - j : j;
      for (int32_t o = 0, n; o < s->c_out; o += n) {
        n = block_width(&p, s->c_out, o);
        block_line(&p, t, x, w, bias, y, o, n, iu);
      }
    }
    return;
  }
  /* a block of channels over all lines, then the next; planes: one channel at a time, its rows in order */
  for (int32_t done = 0, n; done < s->c_out; done += n) {
    const int32_t o = backward ? s->c_out - 1 - done : done;
    n = order == MX_CONV_FAST ? block_width(&p, s->c_out, o) : 1;
    for (int32_t j = 0; j < lines; ++j) {
      block_line(&p, t, x, w, bias, y, o, n, backward ? lines - 1 - j : j);
    }
  }
}

const mx_conv2d_f32_layout *mx_conv2d_f32_nchw(const mx_conv2d_f32_shape *s, mx_conv2d_f32_layout *l) {
  *l = (mx_conv2d_f32_layout){s->in_h * s->in_w, s->in_w, 1, s->out_h * s->out_w, s->out_w, 1};
  return l;
}

/* A 1x1 convolution of one group, channels-last in and out: each pixel's outputs are its channels times the
 * weight [out][in] as stored. Apart, one product over all pixels; over its input, one per image row in the order
 * the rule needs (a row of the out then lies below, or above, every input row still to be read). */
static void pointwise_nhwc(const mx_conv2d_f32_shape *s, const float *x, const float *w, const float *bias, float *y,
                           mx_conv2d_f32_order order) {
  const uint32_t ci = (uint32_t)s->c_in, co = (uint32_t)s->c_out, wd = (uint32_t)s->in_w, h = (uint32_t)s->in_h;
  if (order == MX_CONV_FAST) {
    mx_matmul_nt_f32(x, ci, w, ci, bias, y, co, h * wd, ci, co);
    return;
  }
  for (uint32_t j = 0; j < h; ++j) {
    const uint32_t r = order == MX_CONV_ROWS_BACKWARD ? h - 1 - j : j;
    mx_matmul_nt_f32(x + (size_t)r * wd * ci, ci, w, ci, bias, y + (size_t)r * wd * co, co, wd, ci, co);
  }
}

void mx_conv2d_f32(const mx_conv2d_f32_shape *s, const mx_conv2d_f32_layout *l, const float *x, const float *w,
                   const float *bias, float *y, mx_conv2d_f32_order order) {
  const bool one =
      s->k_h == 1 && s->k_w == 1 && s->stride[0] == 1 && s->stride[1] == 1 && s->pad[0] == 0 && s->pad[1] == 0;
  const bool nchw = l->x_px == 1 && l->y_px == 1 && l->x_c == s->in_h * s->in_w;
  const bool nhwc = l->x_c == 1 && l->y_c == 1 && l->x_px == s->c_in && l->y_px == s->c_out;
  if (one && nhwc && s->groups == 1) {
    pointwise_nhwc(s, x, w, bias, y, order);
    return;
  }
  const bool rows_any = order == MX_CONV_FAST || order == MX_CONV_ROWS || order == MX_CONV_ROWS_BACKWARD;
  if (nhwc && rows_any && s->groups == s->c_in && s->c_out == s->c_in) {
    mx_conv2d_f32_dw_nhwc(s, x, w, bias, y, order == MX_CONV_ROWS_BACKWARD);
    return;
  }
  if (one && nchw && order == MX_CONV_FAST) {
    /* 1x1: per group a matrix product, y[oc, :] = bias[oc] + sum_c w[oc, c] * x[c, :] */
    const uint32_t cg = (uint32_t)(s->c_in / s->groups), og = (uint32_t)(s->c_out / s->groups);
    const size_t hw = (size_t)s->in_h * (size_t)s->in_w;
    for (uint32_t g = 0; g < (uint32_t)s->groups; ++g) {
      mx_matmul_bias_f32(w + (size_t)g * og * cg, x + (size_t)g * cg * hw, bias != NULL ? bias + g * og : NULL,
                         y + (size_t)g * og * hw, og, cg, (uint32_t)hw);
    }
    return;
  }
  conv_direct(s, l, x, w, bias, y, order);
}
