#ifndef MX_PORTABLE_MM_ARGS_H
#define MX_PORTABLE_MM_ARGS_H
/* The check of mm and bmm, whose arguments sit alike (self, mat2, out, ret). */
#include "mx/kernel.h"

/* self, mat2 and out are contiguous float32 tensors: [M, K] @ [K, N] -> [M, N], or with `batched` a
 * leading batch dim B on all three. */
mx_arg_error mx_mm_check(mx_value *const *args, bool batched);

#endif
