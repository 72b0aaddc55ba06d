#ifndef MX_CM_DEPTHWISE_CONV2D_H
#define MX_CM_DEPTHWISE_CONV2D_H
/* quantized_depthwise_conv2d(_nhwc) via arm_depthwise_conv_wrapper_s8 (body shared by both spellings: see
 * mx_cm_conv_args.h). */
#include "mx/kernel.h"

mx_arg_error mx_cm_depthwise_conv2d_check(mx_value *const *args, bool nhwc);
mx_error mx_cm_depthwise_conv2d(mx_value *const *args, bool nhwc);

#endif
