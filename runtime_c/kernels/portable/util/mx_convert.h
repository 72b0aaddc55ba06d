#ifndef MX_PORTABLE_CONVERT_H
#define MX_PORTABLE_CONVERT_H
/* Element-wise dtype conversion between strided layouts (what `.to(dtype)` lowers to). */
#include "mx/kernel.h"

/* Whether mx_strided_convert handles this dtype (bool, integers, float32, float64; not float16). */
bool mx_convert_supports(uint8_t dtype);

/* For every index of shape sizes/dim, converts src[sum idx*src_strides] (src_dtype) into
 * dst[sum idx*dst_strides] (dst_dtype), as torch casts: float to integer truncates toward zero
 * (NaN gives 0, out-of-range values saturate at the int64 range before narrowing), any nonzero
 * value is true. */
void mx_strided_convert(void *dst, uint8_t dst_dtype, const uint32_t *dst_strides, const void *src, uint8_t src_dtype,
                        const uint32_t *src_strides, const int32_t *sizes, uint32_t dim);

#endif
