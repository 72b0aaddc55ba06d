#include "mx_convert.h"

#include "mx_int_float.h"
#include "mx_odometer.h"

/* One element in transit: integers keep all 64 bits, floats stay floating. */
typedef struct elem {
  bool is_float;
  int64_t i;
  double d;
} elem;

bool mx_convert_supports(uint8_t dtype) {
  switch (dtype) {
    case MX_DTYPE_U8:
    case MX_DTYPE_I8:
    case MX_DTYPE_I16:
    case MX_DTYPE_I32:
    case MX_DTYPE_I64:
    case MX_DTYPE_F32:
    case MX_DTYPE_F64:
    case MX_DTYPE_BOOL: return true;
    default: return false;
  }
}

static elem load(const void *p, uint8_t dtype, uint32_t k) {
  elem e = {false, 0, 0.0};
  switch (dtype) {
    case MX_DTYPE_U8: e.i = ((const uint8_t *)p)[k]; break;
    case MX_DTYPE_BOOL: e.i = ((const uint8_t *)p)[k] != 0; break;
    case MX_DTYPE_I8: e.i = ((const int8_t *)p)[k]; break;
    case MX_DTYPE_I16: e.i = ((const int16_t *)p)[k]; break;
    case MX_DTYPE_I32: e.i = ((const int32_t *)p)[k]; break;
    case MX_DTYPE_I64: e.i = ((const int64_t *)p)[k]; break;
    case MX_DTYPE_F32:
      e.is_float = true;
      e.d = (double)((const float *)p)[k];
      break;
    default:
      e.is_float = true;
      e.d = ((const double *)p)[k];
      break;
  }
  return e;
}

static int64_t as_int(elem e) { return e.is_float ? mx_f64_to_i64(e.d) : e.i; }

static void store(void *p, uint8_t dtype, uint32_t k, elem e) {
  /* narrowing keeps the low bits (two's complement), as torch's integer casts do */
  switch (dtype) {
    case MX_DTYPE_U8: ((uint8_t *)p)[k] = (uint8_t)(uint64_t)as_int(e); break;
    case MX_DTYPE_BOOL: ((uint8_t *)p)[k] = e.is_float ? e.d != 0.0 : e.i != 0; break;
    case MX_DTYPE_I8: ((int8_t *)p)[k] = (int8_t)as_int(e); break;
    case MX_DTYPE_I16: ((int16_t *)p)[k] = (int16_t)as_int(e); break;
    case MX_DTYPE_I32: ((int32_t *)p)[k] = (int32_t)as_int(e); break;
    case MX_DTYPE_I64: ((int64_t *)p)[k] = as_int(e); break;
    case MX_DTYPE_F32: ((float *)p)[k] = e.is_float ? (float)e.d : mx_i64_to_f32(e.i); break;
    default: ((double *)p)[k] = e.is_float ? e.d : mx_i64_to_f64(e.i); break;
  }
}

void mx_strided_convert(void *dst, uint8_t dst_dtype, const uint32_t *dst_strides, const void *src, uint8_t src_dtype,
                        const uint32_t *src_strides, const int32_t *sizes, uint32_t dim) {
  uint32_t numel = 1;
  for (uint32_t d = 0; d < dim; ++d) {
    numel *= (uint32_t)sizes[d];
  }
  uint32_t idx[MX_MAX_DIM] = {0};
  uint32_t doff = 0, soff = 0;
  for (uint32_t n = 0; n < numel; ++n) {
    store(dst, dst_dtype, doff, load(src, src_dtype, soff));
    mx_odometer_step(idx, sizes, dim, dst_strides, &doff, src_strides, &soff);
  }
}
