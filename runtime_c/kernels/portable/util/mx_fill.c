#include "mx_fill.h"

#include <string.h>

#include "mx_int_float.h"

mx_error mx_fill_check(const mx_tensor *out) { return out->dtype == MX_DTYPE_F16 ? MX_ERR_BAD_DTYPE : MX_OK; }

/* The Scalar as an integer of the out's dtype (before narrowing). */
static int64_t as_int(const mx_value *v) {
  switch (v->tag) {
    case MX_TAG_DOUBLE:
      return mx_f64_to_i64(mx_value_double(v)); /* NaN and beyond int64: defined, as _to_copy's cast */
    case MX_TAG_BOOL: return v->u.b ? 1 : 0;
    default: return mx_value_int(v);
  }
}

static double as_double(const mx_value *v) {
  switch (v->tag) {
    case MX_TAG_DOUBLE: return mx_value_double(v);
    case MX_TAG_BOOL: return v->u.b ? 1.0 : 0.0;
    default: return mx_i64_to_f64(mx_value_int(v));
  }
}

/* A float32 fill from an Int rounds once, as torch's int64 → float cast does (not through double). */
static float as_float(const mx_value *v) {
  return v->tag == MX_TAG_INT ? mx_i64_to_f32(mx_value_int(v)) : (float)as_double(v);
}

void mx_fill(mx_tensor *out, const mx_value *fill_value) {
  uint8_t elem[8];
  const int64_t i = as_int(fill_value);
  switch (out->dtype) {
    case MX_DTYPE_F32: {
      const float f = as_float(fill_value);
      memcpy(elem, &f, sizeof f);
      break;
    }
    case MX_DTYPE_F64: {
      const double d = as_double(fill_value);
      memcpy(elem, &d, sizeof d);
      break;
    }
    case MX_DTYPE_BOOL: elem[0] = fill_value->tag == MX_TAG_DOUBLE ? mx_value_double(fill_value) != 0.0 : i != 0; break;
    default: {
      /* little-endian: the low bytes of the int64 are the narrowed integer */
      memcpy(elem, &i, sizeof elem);
      break;
    }
  }
  const size_t size = mx_dtype_size(out->dtype);
  uint8_t *dst = (uint8_t *)out->data;
  for (uint32_t k = 0; k < out->numel; ++k) {
    memcpy(dst + (size_t)k * size, elem, size);
  }
}
