#ifndef MX_CM_MAX_POOL2D_H
#define MX_CM_MAX_POOL2D_H
/* quantized_max_pool2d(_nhwc) via arm_max_pool_s8 (body shared by both spellings: see mx_cm_conv_args.h). */
#include "mx/kernel.h"

mx_error mx_cm_max_pool2d(mx_value *const *args, uint32_t nargs, bool nhwc);

#endif
