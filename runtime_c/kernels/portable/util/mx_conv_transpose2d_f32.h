#ifndef MX_PORTABLE_CONV_TRANSPOSE2D_F32_H
#define MX_PORTABLE_CONV_TRANSPOSE2D_F32_H
/* The float32 2-D transposed convolution (NCHW, one image at a time): the gradient of a convolution with
 * respect to its input, written as a gather so that each output element is summed once, in registers, with no
 * scratch buffer. The kernel checks the arguments; this trusts the shape it is given. */
#include "mx_conv2d_f32.h"

/* y [c_out, out_h, out_w] = conv_transpose(x [c_in, in_h, in_w], w [c_in, c_out / groups, k_h, k_w]) + bias [c_out]
 * (bias NULL: none); s->out_h/out_w are the output's sizes (output_padding included). y must not alias x, w or bias. */
void mx_conv_transpose2d_f32(const mx_conv2d_f32_shape *s, const float *x, const float *w, const float *bias, float *y);

#endif
