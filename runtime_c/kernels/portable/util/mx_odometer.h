#ifndef MX_PORTABLE_ODOMETER_H
#define MX_PORTABLE_ODOMETER_H
/* The row-major walk over an index space shared by the strided copy, convert and broadcast loops. */
#include <stdint.h>

/* Advances idx[0..dim) by one like an odometer (sizes[d] per digit) while two element offsets follow
 * it along their strides; after the last index everything is back at zero. */
static inline void mx_odometer_step(uint32_t *idx, const int32_t *sizes, uint32_t dim, const uint32_t *a_strides,
                                    uint32_t *a_off, const uint32_t *b_strides, uint32_t *b_off) {
  for (uint32_t d = dim; d-- > 0;) {
    *a_off += a_strides[d];
    *b_off += b_strides[d];
    if (++idx[d] < (uint32_t)sizes[d]) {
      return;
    }
    *a_off -= a_strides[d] * (uint32_t)sizes[d];
    *b_off -= b_strides[d] * (uint32_t)sizes[d];
    idx[d] = 0;
  }
}

#endif
