#ifndef MX_PORTABLE_DIM_ORDER_COPY_H
#define MX_PORTABLE_DIM_ORDER_COPY_H
/* The body of ExecuTorch's dim-order copies, _to_dim_order_copy.out and _clone_dim_order.out, which lay out
 * their arguments alike: (self, non_blocking, dim_order?, out, ret). self is copied into out's memory order.
 * A Null dim_order means torch.preserve_format (ExecuTorch's get_memory_format): out keeps self's dim order.
 * Here the copy that keeps the dtype; the one that converts it is util/mx_dim_order_convert.c, which a
 * firmware links only when one of its model's copies changes a dtype (mcu_export/firmware/kernel_variants.py):
 * the conversion brings ~1 KB, and without a double-precision FPU ~2.5 KB of soft-float double. */
#include "mx/kernel.h"

/* Shapes and dim orders: out has self's sizes, both orders are permutations, out's is the one requested. */
mx_arg_error mx_dim_order_layout_check(mx_value *const *args);
/* The layout check, and self and out of one dtype. */
mx_arg_error mx_dim_order_copy_check(mx_value *const *args);
/* self's and out's element strides from their dim orders. */
void mx_dim_order_copy_strides(mx_value *const *args, uint32_t src_strides[MX_MAX_DIM],
                               uint32_t dst_strides[MX_MAX_DIM]);
void mx_dim_order_copy(mx_value *const *args);

#endif
