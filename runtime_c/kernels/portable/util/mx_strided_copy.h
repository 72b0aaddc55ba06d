#ifndef MX_PORTABLE_STRIDED_COPY_H
#define MX_PORTABLE_STRIDED_COPY_H
/* Element copy between two strided layouts of one shape: what permute and dim-order changes do. */
#include <stddef.h>
#include <stdint.h>

#include "mx/value.h"

/* For every index of shape sizes/dim, dst[sum idx*dst_strides] = src[sum idx*src_strides]
 * (strides in elements, elements of `elem` bytes: 1, 2, 4 or 8). */
void mx_strided_copy(void *dst, const uint32_t *dst_strides, const void *src, const uint32_t *src_strides,
                     const int32_t *sizes, uint32_t dim, size_t elem);

/* Row-major strides (in elements) of a tensor whose memory order of dims is dim_order. */
void mx_strides_from_dim_order(const int32_t *sizes, const uint8_t *dim_order, uint32_t dim, uint32_t *strides);

#endif
