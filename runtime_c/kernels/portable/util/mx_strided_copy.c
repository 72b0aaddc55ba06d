#include "mx_strided_copy.h"

#include "mx_odometer.h"

/* One row along the last dim, with a typed loop per element size so the compiler emits plain loads
 * and stores rather than a memcpy call per element. */
static void copy_row(uint8_t *dst, uint32_t ds, const uint8_t *src, uint32_t ss, uint32_t n, size_t elem) {
  switch (elem) {
    case 1:
      for (uint32_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
      break;
    case 2:
      for (uint32_t i = 0; i < n; ++i) ((uint16_t *)dst)[i * ds] = ((const uint16_t *)src)[i * ss];
      break;
    case 4:
      for (uint32_t i = 0; i < n; ++i) ((uint32_t *)dst)[i * ds] = ((const uint32_t *)src)[i * ss];
      break;
    default:
      for (uint32_t i = 0; i < n; ++i) ((uint64_t *)dst)[i * ds] = ((const uint64_t *)src)[i * ss];
      break;
  }
}

void mx_strided_copy(void *dst, const uint32_t *dst_strides, const void *src, const uint32_t *src_strides,
                     const int32_t *sizes, uint32_t dim, size_t elem) {
  uint32_t numel = 1;
  for (uint32_t d = 0; d < dim; ++d) {
    numel *= (uint32_t)sizes[d];
  }
  if (numel == 0) {
    return;
  }
  uint32_t inner = dim == 0 ? 1u : (uint32_t)sizes[dim - 1];
  uint32_t ds = dim == 0 ? 0u : dst_strides[dim - 1], ss = dim == 0 ? 0u : src_strides[dim - 1];
  uint32_t idx[MX_MAX_DIM] = {0};
  uint32_t doff = 0, soff = 0;
  for (uint32_t r = 0, rows = numel / inner; r < rows; ++r) {
    copy_row((uint8_t *)dst + doff * elem, ds, (const uint8_t *)src + soff * elem, ss, inner, elem);
    mx_odometer_step(idx, sizes, dim > 0 ? dim - 1 : 0, dst_strides, &doff, src_strides, &soff);
  }
}

void mx_strides_from_dim_order(const int32_t *sizes, const uint8_t *dim_order, uint32_t dim, uint32_t *strides) {
  uint32_t run = 1;
  for (uint32_t k = dim; k-- > 0;) {
    strides[dim_order[k]] = run;
    run *= (uint32_t)sizes[dim_order[k]];
  }
}
