/* aten::split_with_sizes_copy.out, any dtype: (self, split_sizes, dim, out[], ret[]). Out k holds
 * split_sizes[k] consecutive indices along dim; the sizes add up to self's. */
#include "util/mx_args.h"
#include "util/mx_block_copy.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_split_with_sizes_copy_##name

mx_arg_error mx_k_aten_split_with_sizes_copy_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self));
  const mx_int_list splits = *mx_arg_int_list(args, A(split_sizes));
  const mx_tensor_list outs = mx_arg_tensor_list(args, A(out));
  MX_CHECK(A(self), mx_check_contiguous(in));
  MX_REFUSE_IF(in->dim == 0, A(self), MX_ERR_BAD_SHAPE);
  uint32_t dim = 0;
  MX_CHECK(A(dim), mx_wrap_dim(mx_arg_int(args, A(dim)), in->dim, &dim));
  /* the sizes first: a wrong out then names out, wrong sizes name split_sizes */
  int64_t total = 0;
  for (uint32_t k = 0; k < splits.len; ++k) {
    MX_REFUSE_IF(splits.items[k] < 0 || splits.items[k] > in->sizes[dim], A(split_sizes), MX_ERR_BAD_ARG_VALUE);
    total += splits.items[k];
  }
  MX_REFUSE_IF(total != in->sizes[dim], A(split_sizes), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(splits.len != outs.len, A(split_sizes), MX_ERR_BAD_ARG_VALUE);
  int32_t sizes[MX_MAX_DIM];
  for (uint32_t d = 0; d < in->dim; ++d) {
    sizes[d] = in->sizes[d];
  }
  for (uint32_t k = 0; k < outs.len; ++k) {
    sizes[dim] = (int32_t)splits.items[k];
    MX_CHECK(A(out), mx_check_contiguous(outs.items[k]));
    MX_REFUSE_IF(outs.items[k]->dtype != in->dtype, A(out), MX_ERR_BAD_DTYPE);
    MX_CHECK(A(out), mx_check_sizes(outs.items[k], sizes, in->dim));
  }
  return MX_OK;
}

mx_error mx_k_aten_split_with_sizes_copy_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self));
  const mx_int_list splits = *mx_arg_int_list(args, A(split_sizes));
  const mx_tensor_list outs = mx_arg_tensor_list(args, A(out));
  const uint32_t dim = mx_wrapped_dim(mx_arg_int(args, A(dim)), in->dim);
  const size_t inner = (size_t)mx_size_prod(in->sizes, dim + 1, in->dim) * mx_dtype_size(in->dtype);
  const size_t row = (size_t)in->sizes[dim] * inner;
  const uint32_t outer = mx_size_prod(in->sizes, 0, dim);
  const uint8_t *src = (const uint8_t *)in->data;
  for (uint32_t k = 0; k < outs.len; ++k) {
    const size_t bytes = (size_t)splits.items[k] * inner;
    mx_block_copy((uint8_t *)outs.items[k]->data, bytes, src, row, outer, bytes);
    src += bytes;
  }
  return MX_OK;
}
