#ifndef MX_PORTABLE_REDUCE_F32_H
#define MX_PORTABLE_REDUCE_F32_H
/* The sum over a dim list shared by mean.out and sum.IntList_out, which lay out their arguments alike:
 * (self, dim?, keepdim, dtype?, out, ret). A Null or empty dim list reduces every dim. */
#include "mx_args.h"

/* self and out float32, dtype Null or float32, dims distinct and in range, out of the reduced shape; both
 * contiguous. With spatial_channels_last (mean's global average pool, which a channels-last graph keeps), self may
 * also be channels-last when exactly dims 2 and 3 reduce, and out channels-last when its bytes are contiguous's. */
mx_arg_error mx_reduce_f32_check(mx_value *const *args, bool spatial_channels_last);

/* out[i] = the sum of the self elements that reduce to i, always added in the same order; returns how many
 * elements each out element sums (0 when a reduced dim is empty). */
uint32_t mx_reduce_f32_sum(mx_value *const *args);

/* y[n, c] = the sum over H and W of a channels-last float32 [N, C, H, W]: pixel by pixel, a row of C sums at a
 * time (the loop vectorises along C). Each y element adds its H * W elements in the order the contiguous loops
 * do, so the result is the same to the bit. */
void mx_reduce_f32_hw_channels_last(const mx_tensor *in, float *y);

#endif
