#include "mx_tensor_util.h"

#include "mx_args.h"
#include "mx_int_float.h"

mx_error mx_tensor_check(const mx_tensor *t) {
  uint32_t elem = mx_dtype_size(t->dtype);
  if (elem == 0) {
    return MX_ERR_BAD_DTYPE;
  }
  if (t->dim > MX_MAX_DIM) {
    return MX_ERR_BAD_SHAPE;
  }
  uint64_t numel = 1;
  for (uint32_t i = 0; i < t->dim; ++i) {
    if (t->sizes[i] < 0) {
      return MX_ERR_BAD_SHAPE;
    }
    numel *= (uint64_t)t->sizes[i];
    if (numel > UINT32_MAX) {
      return MX_ERR_BAD_SHAPE;
    }
  }
  if (numel != t->numel || numel * elem > UINT32_MAX) {   /* mx_tensor_nbytes fits 32 bits */
    return MX_ERR_BAD_SHAPE;
  }
  if (numel > 0 && t->data == NULL) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  return MX_OK;
}

bool mx_is_contiguous(const mx_tensor *t) {
  for (uint32_t i = 0; i < t->dim; ++i) {
    if (t->dim_order[i] != i) {
      return false;
    }
  }
  return true;
}

bool mx_is_channels_last(const mx_tensor *t) {
  static const uint8_t nhwc[4] = {0, 2, 3, 1};
  if (t->dim != 4) {
    return false;
  }
  for (uint32_t i = 0; i < 4; ++i) {
    if (t->dim_order[i] != nhwc[i]) {
      return false;
    }
  }
  return true;
}

bool mx_channels_last_as_contiguous(const mx_tensor *t) {
  return mx_is_channels_last(t) && (t->sizes[1] == 1 || (t->sizes[2] == 1 && t->sizes[3] == 1));
}

bool mx_same_dim_order(const mx_tensor *a, const mx_tensor *b) {
  if (a->dim != b->dim) {
    return false;
  }
  for (uint32_t i = 0; i < a->dim; ++i) {
    if (a->dim_order[i] != b->dim_order[i]) {
      return false;
    }
  }
  return true;
}

void mx_dim_order_strides(const mx_tensor *t, uint32_t *strides) {
  uint32_t stride = 1;
  for (uint32_t i = t->dim; i-- > 0;) {
    const uint32_t d = t->dim_order[i];
    strides[d] = stride;
    stride *= (uint32_t)t->sizes[d];
  }
}

mx_error mx_check_dtype(const mx_tensor *t, mx_dtype dtype) { return t->dtype == dtype ? MX_OK : MX_ERR_BAD_DTYPE; }

mx_error mx_check_tensor(const mx_tensor *t, mx_dtype dtype) {
  MX_TRY(mx_check_dtype(t, dtype));
  return mx_check_contiguous(t);
}

mx_error mx_check_tensor_or_channels_last(const mx_tensor *t, mx_dtype dtype) {
  MX_TRY(mx_check_dtype(t, dtype));
  return mx_is_channels_last(t) ? MX_OK : mx_check_contiguous(t);
}

mx_arg_error mx_check_arg_tensor(mx_value *const *args, uint32_t i, mx_dtype dtype) {
  MX_CHECK(i, mx_check_tensor(args[i]->u.t, dtype));
  return MX_OK;
}

mx_arg_error mx_check_arg_tensors(mx_value *const *args, const uint8_t *indices, uint32_t n, mx_dtype dtype) {
  for (uint32_t k = 0; k < n; ++k) {
    MX_TRY(mx_check_arg_tensor(args, indices[k], dtype));
  }
  return MX_OK;
}

mx_error mx_check_contiguous(const mx_tensor *t) { return mx_is_contiguous(t) ? MX_OK : MX_ERR_BAD_ARG_VALUE; }

mx_error mx_check_sizes(const mx_tensor *t, const int32_t *sizes, uint32_t dim) {
  if (t->dim != dim) {
    return MX_ERR_BAD_SHAPE;
  }
  for (uint32_t i = 0; i < dim; ++i) {
    if (t->sizes[i] != sizes[i]) {
      return MX_ERR_BAD_SHAPE;
    }
  }
  return MX_OK;
}

bool mx_same_shape(const mx_tensor *a, const mx_tensor *b) { return mx_check_sizes(a, b->sizes, b->dim) == MX_OK; }

mx_error mx_wrap_dim(int64_t d, uint32_t rank, uint32_t *out) {
  int64_t r = rank == 0 ? 1 : (int64_t)rank;
  if (d < -r || d >= r) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  *out = (uint32_t)(d < 0 ? d + r : d);
  return MX_OK;
}

uint32_t mx_size_prod(const int32_t *sizes, uint32_t from, uint32_t to) {
  uint32_t p = 1;
  for (uint32_t i = from; i < to; ++i) {
    p *= (uint32_t)sizes[i];
  }
  return p;
}

float mx_tensor_item_as_float(const mx_tensor *t) {
  switch (t->dtype) {
    case MX_DTYPE_U8: return (float)*(const uint8_t *)t->data;
    case MX_DTYPE_BOOL: return *(const uint8_t *)t->data ? 1.0f : 0.0f;
    case MX_DTYPE_I8: return (float)*(const int8_t *)t->data;
    case MX_DTYPE_I16: return (float)*(const int16_t *)t->data;
    case MX_DTYPE_I32: return (float)*(const int32_t *)t->data;
    case MX_DTYPE_I64: return mx_i64_to_f32(*(const int64_t *)t->data);
    case MX_DTYPE_F32: return *(const float *)t->data;
    default: return (float)*(const double *)t->data; /* float64: the check refused float16 */
  }
}
