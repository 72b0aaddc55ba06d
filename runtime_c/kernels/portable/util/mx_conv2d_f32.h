#ifndef MX_PORTABLE_CONV2D_F32_H
#define MX_PORTABLE_CONV2D_F32_H
/* The loop nests of the float32 2-D convolution (NCHW, one image at a time). The kernel checks the
 * arguments; these functions trust the shape they are given. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mx_conv2d_f32_shape {
  int32_t c_in, in_h, in_w;
  int32_t c_out, out_h, out_w;
  int32_t k_h, k_w, groups;
  int32_t stride[2], pad[2], dil[2]; /* (h, w) */
} mx_conv2d_f32_shape;

/* y [c_out, out_h, out_w] = conv(x [c_in, in_h, in_w], w [c_out, c_in / groups, k_h, k_w]) + bias [c_out]
 * (bias NULL: none). y must not alias x, w or bias. */
void mx_conv2d_f32(const mx_conv2d_f32_shape *s, const float *x, const float *w, const float *bias, float *y);

/* A depthwise y (groups = c_in = c_out, not the 1x1 path) over its input x: channel planes one at a time, row by
 * row, first to last (backward: last to first), so each row is written over input no later row reads when the
 * out lies as mx_planes_fits allows. The same results as mx_conv2d_f32, bit for bit. */
void mx_conv2d_f32_planes(const mx_conv2d_f32_shape *s, const float *x, const float *w, const float *bias, float *y,
                          bool backward);

#endif
