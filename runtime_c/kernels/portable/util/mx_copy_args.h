#ifndef MX_PORTABLE_COPY_ARGS_H
#define MX_PORTABLE_COPY_ARGS_H
/* The argument checks of permute_copy and view_copy, which share the schema (self, int[], out, ret). */
#include "mx/kernel.h"

/* nargs must be 4 (else MX_ERR_BAD_ARG_COUNT); self and out are contiguous tensors of one dtype (any),
 * args[1] is an int list (items, len) and args[3] returns out. */
mx_error mx_copy_args(mx_value *const *args, uint32_t nargs, mx_tensor **self, const int64_t **items, uint32_t *len,
                      mx_tensor **out);

#endif
