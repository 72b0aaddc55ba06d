#ifndef MX_PORTABLE_SOFTMAX_F32_H
#define MX_PORTABLE_SOFTMAX_F32_H
/* The body shared by _softmax.out and _log_softmax.out, which lay out their arguments alike:
 * (self, dim, half_to_float, out, ret). Each slice along dim has its maximum taken out before expf, so large
 * inputs do not overflow; log_softmax is x - max - log(sum(exp(x - max))), finite where log(softmax(x))
 * would reach -inf for large negative differences. */
#include <stdbool.h>

#include "mx_args.h"

/* self and out float32 of one shape, half_to_float false (torch: only for half inputs), dim in range. */
mx_arg_error mx_softmax_f32_check(mx_value *const *args);

void mx_softmax_f32(mx_value *const *args, bool take_log);

#endif
