#ifndef MX_PORTABLE_DIM_ORDER_CONVERT_H
#define MX_PORTABLE_DIM_ORDER_CONVERT_H
/* _to_dim_order_copy.out's body when it may change the dtype: self copied into out's memory order and converted
 * to out's dtype (util/mx_convert.c), or copied alone where the dtypes agree (util/mx_dim_order_copy.c). */
#include "mx/kernel.h"

mx_arg_error mx_dim_order_convert_check(mx_value *const *args);
void mx_dim_order_convert(mx_value *const *args);

#endif
