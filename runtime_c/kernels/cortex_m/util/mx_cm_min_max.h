#ifndef MX_CM_MIN_MAX_H
#define MX_CM_MIN_MAX_H
/* The body of cortex_m::maximum.out and minimum.out: arm_maximum_s8 or arm_minimum_s8 once per run of the
 * broadcast (util/mx_cm_binary.h) on int8 operands that share the output's quantization (the lowering
 * requantizes them first). */
#include <stdbool.h>

#include "mx/kernel.h"

mx_error mx_cm_min_max(const mx_tensor *a, const mx_tensor *b, const mx_tensor *out, bool take_max);

#endif
