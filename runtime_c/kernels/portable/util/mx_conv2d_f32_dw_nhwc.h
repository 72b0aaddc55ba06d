#ifndef MX_PORTABLE_CONV2D_F32_DW_NHWC_H
#define MX_PORTABLE_CONV2D_F32_DW_NHWC_H
/* The float32 depthwise convolution (one input and one output channel per group) channels-last in and out: the
 * layout the exporter gives the convolutions around an overlap, and the one whose channels lie side by side, so
 * that one load (a vector on MVE) takes 4 channels of a pixel. */
#include <stdbool.h>

#include "mx_conv2d_f32.h"

/* y [out_h, out_w, c] = depthwise conv(x [in_h, in_w, c], w [c, 1, k_h, k_w]) + bias [c] (bias NULL: none), one
 * image, c = c_in = c_out = groups. Output rows one at a time, every channel, first to last (backward: last to
 * first), so it serves MX_CONV_FAST and both MX_CONV_ROWS orders. Per element the operations of mx_conv2d_f32:
 * bias (or 0), then each valid tap's product, kernel row by row, so the bits are the same. */
void mx_conv2d_f32_dw_nhwc(const mx_conv2d_f32_shape *s, const float *x, const float *w, const float *bias, float *y,
                           bool backward);

#endif
