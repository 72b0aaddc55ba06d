#ifndef MX_PORTABLE_REDUCE_F32_H
#define MX_PORTABLE_REDUCE_F32_H
/* The sum over a dim list shared by mean.out and sum.IntList_out, which lay out their arguments alike:
 * (self, dim?, keepdim, dtype?, out, ret). A Null or empty dim list reduces every dim. */
#include "mx_args.h"

/* self and out float32, dtype Null or float32, dims distinct and in range, out of the reduced shape. */
mx_arg_error mx_reduce_f32_check(mx_value *const *args);

/* out[i] = the sum of the self elements that reduce to i, always added in the same order; returns how many
 * elements each out element sums (0 when a reduced dim is empty). */
uint32_t mx_reduce_f32_sum(mx_value *const *args);

#endif
