#ifndef MX_PORTABLE_COMPARE_F32_H
#define MX_PORTABLE_COMPARE_F32_H
/* The one body behind eq/ne/gt/ge/lt/le, .Scalar_out and .Tensor_out: (self, other, out, ret). self is
 * float32, out bool; other is a Scalar (compared in float32, as torch promotes it) or a tensor broadcast
 * with self (float32, or a one-element tensor of any numeric dtype, read as a float). */
#include "mx/kernel.h"

typedef enum mx_cmp { MX_CMP_EQ, MX_CMP_NE, MX_CMP_GT, MX_CMP_GE, MX_CMP_LT, MX_CMP_LE } mx_cmp;

/* Argument positions: every comparison has (self 0, other 1, out 2, ret 3). */
mx_arg_error mx_compare_f32_check(mx_value *const *args, bool tensor_other);
void mx_compare_f32(mx_value *const *args, mx_cmp op, bool tensor_other);

#endif
