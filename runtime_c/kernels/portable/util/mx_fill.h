#ifndef MX_PORTABLE_FILL_H
#define MX_PORTABLE_FILL_H
/* full / full_like: every element of a tensor set to one Scalar argument, cast to the tensor's dtype as
 * torch casts it (a float into an integer dtype truncates toward zero, nonzero is true). */
#include "mx/kernel.h"

/* out's dtype is one the fill writes (not float16). */
mx_error mx_fill_check(const mx_tensor *out);

void mx_fill(mx_tensor *out, const mx_value *fill_value);

#endif
