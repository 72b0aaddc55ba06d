/* The value-range check of int arguments, linked only by builds whose kernels declare ranges (the kernel table
 * points mx_kernel_arg_range here). */
#include "mx/kernel.h"

mx_error mx_check_arg_range(uint8_t kind, const mx_value *v) {
  /* a range is declared only for int and int[] arguments */
  const bool one = v->tag == MX_TAG_INT;
  const int64_t *ints = one ? &v->u.i : v->u.ints.items;
  const uint32_t n = one ? 1u : v->u.ints.len;
  /* every bound fits int32: lo <= x <= hi as one unsigned comparison once x does */
  const mx_arg_bounds *b = &mx_kernel_arg_bounds[kind >> 4];
  const uint32_t lo = (uint32_t)b->lo, span = (uint32_t)b->hi - lo;
  for (uint32_t i = 0; i < n; i++) {
    if (ints[i] != (int32_t)ints[i] || (uint32_t)ints[i] - lo > span) return MX_ERR_BAD_ARG_VALUE;
  }
  return MX_OK;
}
