#ifndef MX_PORTABLE_CONV2D_F32_TAPS_H
#define MX_PORTABLE_CONV2D_F32_TAPS_H
/* Where a float32 convolution's window lands along one spatial axis: which taps of an output index fall inside the
 * input, and which output indices need no padding at all. Shared by the general loop nest (mx_conv2d_f32.c) and
 * the channels-last depthwise one (mx_conv2d_f32_dw_nhwc.c). */
#include <stdint.h>

/* One spatial axis of the convolution, with the memory steps along it. */
typedef struct mx_conv_axis {
  int32_t in, out, k, stride, pad, dil;
  int32_t x_step, w_step, y_step; /* input elements per input index, weights per tap, outputs per index */
} mx_conv_axis;

/* Taps [*first, *first + count) of output index `o` land inside the input; returns count (0: *first 0)
 * and sets *offset to the input offset of the first one (0 when there is none). */
static inline int32_t mx_conv_valid_taps(const mx_conv_axis *a, int32_t o, int32_t *first, int32_t *offset) {
  int32_t start = o * a->stride - a->pad;
  int32_t lo = start < 0 ? (a->dil - 1 - start) / a->dil : 0;
  int32_t hi = start < a->in ? (a->in - start + a->dil - 1) / a->dil : 0;
  hi = hi < a->k ? hi : a->k;
  if (hi <= lo) {
    *first = 0, *offset = 0;
    return 0;
  }
  *first = lo, *offset = (start + lo * a->dil) * a->x_step;
  return hi - lo;
}

/* Output indices [*lo, *hi) along `a` whose window lies inside the input (no padding reached). */
static inline void mx_conv_interior(const mx_conv_axis *a, int32_t *lo, int32_t *hi) {
  int32_t span = a->dil * (a->k - 1) + 1;
  int32_t l = (a->pad + a->stride - 1) / a->stride;
  int32_t h = a->in + a->pad >= span ? (a->in + a->pad - span) / a->stride + 1 : 0;
  l = l < a->out ? l : a->out;
  h = h < a->out ? h : a->out;
  *lo = l, *hi = h > l ? h : l;
}

#endif
