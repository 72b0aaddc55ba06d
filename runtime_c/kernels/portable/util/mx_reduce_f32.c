#include "mx_reduce_f32.h"

#include "mx_tensor_util.h"

_Static_assert(MX_ARG_aten_sum_self == MX_ARG_aten_mean_self && MX_ARG_aten_sum_dim == MX_ARG_aten_mean_dim &&
                   MX_ARG_aten_sum_keepdim == MX_ARG_aten_mean_keepdim &&
                   MX_ARG_aten_sum_dtype == MX_ARG_aten_mean_dtype && MX_ARG_aten_sum_out == MX_ARG_aten_mean_out,
               "sum's arguments sit where mean's do");

#define A(name) MX_ARG_aten_mean_##name

/* Which dims the dim list reduces (Null or empty: all). */
static mx_error reduced_dims(mx_int_list dims, uint32_t r, bool reduce[MX_MAX_DIM]) {
  for (uint32_t d = 0; d < MX_MAX_DIM; ++d) {
    reduce[d] = dims.len == 0 && d < r;
  }
  for (uint32_t i = 0; i < dims.len; ++i) {
    uint32_t d = 0;
    MX_TRY(mx_wrap_dim(dims.items[i], r, &d));
    if (r == 0) {
      continue; /* a scalar's dim 0 / -1 names the scalar itself */
    }
    if (reduce[d]) {
      return MX_ERR_BAD_ARG_VALUE; /* torch: dim appears multiple times */
    }
    reduce[d] = true;
  }
  return MX_OK;
}

/* Out's shape, and how many elements each out element reduces. */
static uint32_t reduced_shape(const mx_tensor *in, const bool *reduce, bool keepdim, int32_t *sizes,
                              uint32_t *out_dim) {
  uint32_t count = 1;
  *out_dim = 0;
  for (uint32_t d = 0; d < in->dim; ++d) {
    if (!reduce[d]) {
      sizes[(*out_dim)++] = in->sizes[d];
    } else {
      count *= (uint32_t)in->sizes[d];
      if (keepdim) {
        sizes[(*out_dim)++] = 1;
      }
    }
  }
  return count;
}

mx_arg_error mx_reduce_f32_check(mx_value *const *args, bool spatial_channels_last) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_REFUSE_IF(!mx_arg_none(args, A(dtype)) && mx_arg_int(args, A(dtype)) != MX_DTYPE_F32, A(dtype), MX_ERR_BAD_DTYPE);
  const bool nhwc = spatial_channels_last && mx_is_channels_last(in);
  if (nhwc) {
    MX_CHECK(A(self), mx_check_dtype(in, MX_DTYPE_F32));
  } else {
    MX_TRY(mx_check_arg_tensor(args, A(self), MX_DTYPE_F32));
  }
  bool reduce[MX_MAX_DIM];
  const mx_error dims = reduced_dims(mx_arg_opt_int_list(args, A(dim)), in->dim, reduce);
  /* channels-last: only the sum over H and W has a loop; anything else is refused as any other dim order is */
  MX_REFUSE_IF(nhwc && (dims != MX_OK || reduce[0] || reduce[1] || !reduce[2] || !reduce[3]), A(self),
               MX_ERR_BAD_ARG_VALUE);
  if (spatial_channels_last && mx_channels_last_as_contiguous(out)) {
    MX_CHECK(A(out), mx_check_dtype(out, MX_DTYPE_F32));
  } else {
    MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_F32));
  }
  MX_CHECK(A(dim), dims);
  int32_t sizes[MX_MAX_DIM];
  uint32_t out_dim = 0;
  (void)reduced_shape(in, reduce, mx_arg_bool(args, A(keepdim)), sizes, &out_dim);
  MX_CHECK(A(out), mx_check_sizes(out, sizes, out_dim));
  return MX_OK;
}

void mx_reduce_f32_hw_channels_last(const mx_tensor *in, float *y) {
  const uint32_t n = (uint32_t)in->sizes[0], c = (uint32_t)in->sizes[1];
  const uint32_t pixels = (uint32_t)in->sizes[2] * (uint32_t)in->sizes[3];
  const float *x = (const float *)in->data;
  for (uint32_t i = 0; i < n; ++i, y += c) {
    for (uint32_t k = 0; k < c; ++k) {
      y[k] = 0.0f;
    }
    for (uint32_t p = 0; p < pixels; ++p, x += c) {
      for (uint32_t k = 0; k < c; ++k) {
        y[k] += x[k];
      }
    }
  }
}

uint32_t mx_reduce_f32_sum(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const uint32_t r = in->dim;
  bool reduce[MX_MAX_DIM];
  (void)reduced_dims(mx_arg_opt_int_list(args, A(dim)), r, reduce);
  int32_t sizes[MX_MAX_DIM];
  uint32_t out_dim = 0;
  const uint32_t count = reduced_shape(in, reduce, false, sizes, &out_dim);

  float *y = (float *)out->data;
  const float *x = (const float *)in->data;
  if (mx_is_channels_last(in)) {
    mx_reduce_f32_hw_channels_last(in, y);
    return count;
  }
  /* Only trailing dims reduced (a global average pool): each out element is one contiguous run, summed
   * in the same order as the general loop below, so the result is the same to the bit. */
  uint32_t lead = r;
  while (lead > 0 && reduce[lead - 1]) {
    --lead;
  }
  bool trailing = true;
  for (uint32_t d = 0; d < lead; ++d) {
    trailing = trailing && !reduce[d];
  }
  if (trailing && count > 0) {
    for (uint32_t i = 0; i < out->numel; ++i, x += count) {
      float acc = 0.0f;
      for (uint32_t j = 0; j < count; ++j) {
        acc += x[j];
      }
      y[i] = acc;
    }
    return count;
  }

  /* Each input element adds into the out element it reduces to: ostride is 0 along reduced dims. */
  uint32_t ostride[MX_MAX_DIM];
  uint32_t run = 1;
  for (uint32_t d = r; d-- > 0;) {
    ostride[d] = reduce[d] ? 0u : run;
    run *= reduce[d] ? 1u : (uint32_t)in->sizes[d];
  }
  for (uint32_t i = 0; i < out->numel; ++i) {
    y[i] = 0.0f;
  }
  uint32_t idx[MX_MAX_DIM] = {0};
  uint32_t off = 0;
  for (uint32_t i = 0; i < in->numel; ++i) {
    y[off] += x[i];
    for (uint32_t d = r; d-- > 0;) {
      off += ostride[d];
      if (++idx[d] < (uint32_t)in->sizes[d]) {
        break;
      }
      off -= ostride[d] * (uint32_t)in->sizes[d];
      idx[d] = 0;
    }
  }
  return count;
}
