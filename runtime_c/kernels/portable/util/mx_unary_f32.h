#ifndef MX_PORTABLE_UNARY_F32_H
#define MX_PORTABLE_UNARY_F32_H
/* Argument checks shared by the element-wise float32 kernels (relu, sigmoid, clamp, ...). */
#include "mx/kernel.h"

/* args[self_i] and args[out_i] are contiguous float32 tensors of one shape, args[out_i + 1] returns out. */
mx_error mx_unary_f32_args(mx_value *const *args, uint32_t self_i, uint32_t out_i, const float **in,
                           float **out, uint32_t *numel);

#endif
