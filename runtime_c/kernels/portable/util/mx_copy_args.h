#ifndef MX_PORTABLE_COPY_ARGS_H
#define MX_PORTABLE_COPY_ARGS_H
/* The shared check of permute_copy and view_copy, whose arguments sit alike (self, int[], out, ret). */
#include "mx/kernel.h"

/* self and out are contiguous tensors of one dtype (any). */
mx_arg_error mx_copy_check(mx_value *const *args);

#endif
