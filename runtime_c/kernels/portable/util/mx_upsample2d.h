#ifndef MX_PORTABLE_UPSAMPLE2D_H
#define MX_PORTABLE_UPSAMPLE2D_H
/* What the 2-D upsampling kernels (upsample_nearest2d.vec_out, upsample_bilinear2d.vec_out) share: the output
 * size from output_size or scale_factors (exactly one given, torch's rule), and the source-coordinate scale per
 * axis as torch computes it. */
#include "mx_args.h"

/* input and out are contiguous NCHW tensors of dtype `dtype`; exactly one of output_size (2 items) and
 * scale_factors (2 positive items) is given, and out's H, W are the size it gives (floor(in * scale) for a scale
 * factor). *bad: the argument at fault. */
mx_error mx_upsample2d_check(mx_value *const *args, uint32_t input_i, uint32_t output_size_i, uint32_t scale_factors_i,
                             uint32_t out_i, mx_dtype dtype, uint32_t *bad);

/* in / out for axis a (0: H, 1: W), or 1 / scale_factors[a] when scale factors are given: the step between
 * source coordinates of neighbouring outputs (torch's compute_scales_value, in float as torch's CPU kernel). */
float mx_upsample2d_scale(mx_value *const *args, uint32_t scale_factors_i, int32_t in, int32_t out, uint32_t a);

#endif
