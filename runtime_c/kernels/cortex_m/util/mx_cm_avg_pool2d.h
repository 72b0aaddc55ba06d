#ifndef MX_CM_AVG_POOL2D_H
#define MX_CM_AVG_POOL2D_H
/* quantized_avg_pool2d(_nhwc) via arm_avgpool_s8 (body shared by both spellings: see mx_cm_conv_args.h). */
#include "mx/kernel.h"

mx_arg_error mx_cm_avg_pool2d_check(mx_value *const *args, bool nhwc);
mx_error mx_cm_avg_pool2d(mx_value *const *args, bool nhwc);
/* The overlap rules of both spellings (mx_cm_rows.h). */
bool mx_cm_avg_pool2d_overlap(mx_value *const *args, uint32_t arg, uint32_t out);
bool mx_cm_avg_pool2d_nhwc_overlap(mx_value *const *args, uint32_t arg, uint32_t out);

#endif
