/* The one element-size table: the loader sizes and aligns tensors with it, kernels copy bytes with it. */
#include "mx/value.h"

uint32_t mx_dtype_size(uint32_t dtype) {
  switch (dtype) {
    case MX_DTYPE_U8:
    case MX_DTYPE_I8:
    case MX_DTYPE_BOOL: return 1;
    case MX_DTYPE_I16:
    case MX_DTYPE_F16: return 2;
    case MX_DTYPE_I32:
    case MX_DTYPE_F32: return 4;
    case MX_DTYPE_I64:
    case MX_DTYPE_F64: return 8;
    default: return 0;
  }
}
