#ifndef MX_PORTABLE_COMPARE_H
#define MX_PORTABLE_COMPARE_H
/* The one body behind eq/ne/gt/ge/lt/le, .Scalar_out and .Tensor_out: (self, other, out, ret); out bool.
 * self is float32 or an integer/bool tensor; other a Scalar, or a tensor broadcast with self (float32,
 * integer/bool, or one element of any numeric dtype). As torch promotes: two integer operands compare as
 * integers, any float one makes both float32 (integers converted as torch casts them). */
#include "mx/kernel.h"

typedef enum mx_cmp { MX_CMP_EQ, MX_CMP_NE, MX_CMP_GT, MX_CMP_GE, MX_CMP_LT, MX_CMP_LE } mx_cmp;

/* Argument positions: every comparison has (self 0, other 1, out 2, ret 3). */
mx_arg_error mx_compare_check(mx_value *const *args, bool tensor_other);
void mx_compare(mx_value *const *args, mx_cmp op, bool tensor_other);

#endif
