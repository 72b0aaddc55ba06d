#ifndef MX_PORTABLE_BROADCAST_H
#define MX_PORTABLE_BROADCAST_H
/* numpy-style broadcasting: shapes align at their last dim; a size-1 (or missing) dim repeats. */
#include "mx/kernel.h"

/* Shape both a and b broadcast to; MX_ERR_BAD_SHAPE when they do not. */
mx_error mx_broadcast_shape(const int32_t *a, uint32_t a_dim, const int32_t *b, uint32_t b_dim, int32_t *sizes,
                            uint32_t *dim);

/* Element strides that read a contiguous `src` at every index of the (broadcast) shape sizes/dim:
 * 0 along the dims src repeats. MX_ERR_BAD_SHAPE when src does not broadcast to that shape. */
mx_error mx_broadcast_strides(const int32_t *src, uint32_t src_dim, const int32_t *sizes, uint32_t dim,
                              uint32_t *strides);

#endif
