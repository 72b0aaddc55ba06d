#ifndef MX_PORTABLE_TRUTH_H
#define MX_PORTABLE_TRUTH_H
/* An element read as a bool, as torch's logical ops read any dtype: nonzero is true (-0.0 is false,
 * NaN true). */
#include <stdint.h>
#include <string.h>

#include "mx/value.h"

static inline bool mx_truthy(const void *data, uint8_t dtype, uint32_t i) {
  switch (dtype) {
    case MX_DTYPE_F32: return ((const float *)data)[i] != 0.0f;
    case MX_DTYPE_F64: return ((const double *)data)[i] != 0.0;
    default: {
      /* integers and bool: any set bit */
      const size_t size = mx_dtype_size(dtype);
      const uint8_t *p = (const uint8_t *)data + (size_t)i * size;
      for (size_t k = 0; k < size; ++k) {
        if (p[k] != 0u) {
          return true;
        }
      }
      return false;
    }
  }
}

#endif
