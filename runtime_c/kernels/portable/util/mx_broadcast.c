#include "mx_broadcast.h"

mx_error mx_broadcast_shape(const int32_t *a, uint32_t a_dim, const int32_t *b, uint32_t b_dim, int32_t *sizes,
                            uint32_t *dim) {
  uint32_t n = a_dim > b_dim ? a_dim : b_dim;
  if (n > MX_MAX_DIM) {
    return MX_ERR_BAD_SHAPE;
  }
  for (uint32_t i = 0; i < n; ++i) {
    /* i counts from the last dim backwards */
    int32_t sa = i < a_dim ? a[a_dim - 1 - i] : 1;
    int32_t sb = i < b_dim ? b[b_dim - 1 - i] : 1;
    int32_t s;
    if (sa == sb || sb == 1) {
      s = sa;
    } else if (sa == 1) {
      s = sb;
    } else {
      return MX_ERR_BAD_SHAPE;
    }
    sizes[n - 1 - i] = s;
  }
  *dim = n;
  return MX_OK;
}

mx_error mx_broadcast_strides(const int32_t *src, uint32_t src_dim, const int32_t *sizes, uint32_t dim,
                              uint32_t *strides) {
  if (src_dim > dim) {
    return MX_ERR_BAD_SHAPE;
  }
  uint32_t stride = 1;
  for (uint32_t i = 0; i < dim; ++i) {
    uint32_t d = dim - 1 - i;
    if (i >= src_dim) {
      strides[d] = 0;
      continue;
    }
    int32_t s = src[src_dim - 1 - i];
    if (s == sizes[d]) {
      strides[d] = s == 1 ? 0 : stride;
    } else if (s == 1) {
      strides[d] = 0;
    } else {
      return MX_ERR_BAD_SHAPE;
    }
    stride *= (uint32_t)s;
  }
  return MX_OK;
}
