#ifndef MX_PORTABLE_DIM_ORDER_COPY_H
#define MX_PORTABLE_DIM_ORDER_COPY_H
/* The body of ExecuTorch's dim-order copies, _to_dim_order_copy.out and _clone_dim_order.out, which lay out
 * their arguments alike: (self, non_blocking, dim_order?, out, ret). self is copied into out's memory order
 * (and converted to out's dtype). A Null dim_order means torch.preserve_format (ExecuTorch's
 * get_memory_format): out keeps self's dim order. */
#include "mx/kernel.h"

mx_arg_error mx_dim_order_copy_check(mx_value *const *args);
void mx_dim_order_copy(mx_value *const *args);

#endif
