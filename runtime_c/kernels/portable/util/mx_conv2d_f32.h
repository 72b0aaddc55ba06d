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

/* Element steps between neighbouring channels, rows and pixels of one image, input (x) and output (y): NCHW
 * {h*w, w, 1}; NHWC (channels-last dim order) {1, w*c, c}. */
typedef struct mx_conv2d_f32_layout {
  int32_t x_c, x_row, x_px;
  int32_t y_c, y_row, y_px;
} mx_conv2d_f32_layout;

/* The order the output is written in. With the out over its input (mx_planes.h) it must be one in which no
 * output row is written over input a later row still reads: FAST only apart; PLANES (NCHW depthwise) one channel
 * plane at a time, row by row; ROWS (NHWC) one output row at a time, all channels, first to last; the
 * BACKWARD ones last to first. Every order gives the same bits. */
typedef enum mx_conv2d_f32_order {
  MX_CONV_FAST,
  MX_CONV_PLANES,
  MX_CONV_PLANES_BACKWARD,
  MX_CONV_ROWS,
  MX_CONV_ROWS_BACKWARD
} mx_conv2d_f32_order;

/* l set to the NCHW steps of shape s; returns l. */
const mx_conv2d_f32_layout *mx_conv2d_f32_nchw(const mx_conv2d_f32_shape *s, mx_conv2d_f32_layout *l);

/* y [c_out, out_h, out_w] = conv(x [c_in, in_h, in_w], w [c_out, c_in / groups, k_h, k_w]) + bias [c_out]
 * (bias NULL: none), both images laid out as l says, in `order`. y must not alias w or bias, nor x but as
 * `order` allows. */
void mx_conv2d_f32(const mx_conv2d_f32_shape *s, const mx_conv2d_f32_layout *l, const float *x, const float *w,
                   const float *bias, float *y, mx_conv2d_f32_order order);

#endif
