/* aten::select_copy.int_out, any dtype: (self, dim, index, out, ret); index in [-size, size). */
#include "util/mx_args.h"
#include "util/mx_block_copy.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_select_copy_##name

mx_arg_error mx_k_aten_select_copy_int_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_CHECK(A(self), mx_check_contiguous(in));
  MX_CHECK(A(out), mx_check_contiguous(out));
  MX_REFUSE_IF(in->dtype != out->dtype, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(in->dim == 0, A(self), MX_ERR_BAD_SHAPE);
  uint32_t dim = 0;
  MX_CHECK(A(dim), mx_wrap_dim(mx_arg_int(args, A(dim)), in->dim, &dim));
  const int64_t index = mx_arg_int(args, A(index)), size = in->sizes[dim];
  MX_REFUSE_IF(index < -size || index >= size, A(index), MX_ERR_BAD_ARG_VALUE);
  int32_t sizes[MX_MAX_DIM];
  uint32_t n = 0;
  for (uint32_t d = 0; d < in->dim; ++d) {
    if (d != dim) {
      sizes[n++] = in->sizes[d];
    }
  }
  MX_CHECK(A(out), mx_check_sizes(out, sizes, n));
  return MX_OK;
}

mx_error mx_k_aten_select_copy_int_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const uint32_t dim = mx_wrapped_dim(mx_arg_int(args, A(dim)), in->dim);
  const int64_t size = in->sizes[dim], index = mx_arg_int(args, A(index));
  const size_t inner = (size_t)mx_size_prod(in->sizes, dim + 1, in->dim) * mx_dtype_size(in->dtype);
  const uint8_t *src = (const uint8_t *)in->data + (size_t)(index < 0 ? index + size : index) * inner;
  mx_block_copy((uint8_t *)out->data, inner, src, (size_t)size * inner, mx_size_prod(in->sizes, 0, dim), inner);
  return MX_OK;
}
