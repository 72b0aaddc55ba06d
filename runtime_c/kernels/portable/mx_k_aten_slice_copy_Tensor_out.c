/* aten::slice_copy.Tensor_out, any dtype: (self, dim, start?, end?, step, out, ret). start and end are
 * clamped into [0, size] after adding size to a negative one, as torch does, so `x[:, 5:99]` is legal. */
#include "util/mx_args.h"
#include "util/mx_block_copy.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_slice_copy_##name

/* A start or end index in [0, size]: Null gives `absent`. */
static int64_t clamped(mx_value *const *args, uint32_t i, int64_t absent, int64_t size) {
  if (mx_arg_none(args, i)) {
    return absent;
  }
  int64_t v = mx_arg_int(args, i);
  v = v < 0 ? v + size : v;
  return v < 0 ? 0 : (v > size ? size : v);
}

/* The first index taken and how many (step >= 1, checked). */
static void slice_range(mx_value *const *args, int64_t size, int64_t *start, int64_t *count) {
  const int64_t step = mx_arg_int(args, A(step));
  *start = clamped(args, A(start), 0, size);
  const int64_t end = clamped(args, A(end), size, size);
  *count = end > *start ? (end - *start + step - 1) / step : 0;
}

mx_arg_error mx_k_aten_slice_copy_Tensor_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_CHECK(A(self), mx_check_contiguous(in));
  MX_CHECK(A(out), mx_check_contiguous(out));
  MX_REFUSE_IF(in->dtype != out->dtype, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(in->dim == 0, A(self), MX_ERR_BAD_SHAPE); /* torch cannot slice a scalar */
  uint32_t dim = 0;
  MX_CHECK(A(dim), mx_wrap_dim(mx_arg_int(args, A(dim)), in->dim, &dim));
  MX_REFUSE_IF(mx_arg_int(args, A(step)) < 1, A(step), MX_ERR_BAD_ARG_VALUE);
  int64_t start = 0, count = 0;
  slice_range(args, in->sizes[dim], &start, &count);
  int32_t sizes[MX_MAX_DIM];
  for (uint32_t d = 0; d < in->dim; ++d) {
    sizes[d] = d == dim ? (int32_t)count : in->sizes[d];
  }
  MX_CHECK(A(out), mx_check_sizes(out, sizes, in->dim));
  return MX_OK;
}

mx_error mx_k_aten_slice_copy_Tensor_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const uint32_t dim = mx_wrapped_dim(mx_arg_int(args, A(dim)), in->dim);
  const int64_t size = in->sizes[dim], step = mx_arg_int(args, A(step));
  int64_t start = 0, count = 0;
  slice_range(args, size, &start, &count);
  const size_t inner = (size_t)mx_size_prod(in->sizes, dim + 1, in->dim) * mx_dtype_size(in->dtype);
  const uint32_t outer = mx_size_prod(in->sizes, 0, dim);
  const uint8_t *src = (const uint8_t *)in->data;
  uint8_t *dst = (uint8_t *)out->data;
  /* one block copy per kept index: a block is that index's row in every outer slice */
  for (int64_t k = 0; k < count; ++k) {
    mx_block_copy(dst + (size_t)k * inner, (size_t)count * inner, src + (size_t)(start + k * step) * inner,
                  (size_t)size * inner, outer, inner);
  }
  return MX_OK;
}
