#ifndef MX_PORTABLE_MM_ARGS_H
#define MX_PORTABLE_MM_ARGS_H
/* The argument checks of mm and bmm, which share the schema (self, mat2, out, ret). */
#include "mx/kernel.h"

/* nargs must be 4 (else MX_ERR_BAD_ARG_COUNT); self, mat2 and out are contiguous float32 tensors and
 * args[3] returns out. Shapes are the caller's to check. */
mx_error mx_mm_args(mx_value *const *args, uint32_t nargs, mx_tensor **self, mx_tensor **mat2, mx_tensor **out);

#endif
