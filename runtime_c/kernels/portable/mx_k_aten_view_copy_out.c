/* aten::view_copy.out, any dtype: (self, size, out, ret). Shapes are static, so `size` must already be
 * out's shape (no -1 left) and keep the element count; the data is copied as is. */
#include <string.h>

#include "util/mx_args.h"
#include "util/mx_copy_args.h"
#include "util/mx_tensor_util.h"

mx_arg_error mx_k_aten_view_copy_out_check(mx_value *const *args) {
  MX_TRY(mx_copy_check(args));
  const mx_tensor *in = mx_arg_tensor(args, MX_ARG_aten_view_copy_self), *out = mx_arg_tensor(args, MX_ARG_aten_view_copy_out);
  const mx_int_list size = *mx_arg_int_list(args, MX_ARG_aten_view_copy_size);
  MX_REFUSE_IF(size.len > MX_MAX_DIM, MX_ARG_aten_view_copy_size, MX_ERR_BAD_ARG_VALUE);
  int32_t sizes[MX_MAX_DIM];
  for (uint32_t i = 0; i < size.len; ++i) {
    MX_REFUSE_IF(size.items[i] < 0 || size.items[i] > INT32_MAX, MX_ARG_aten_view_copy_size, MX_ERR_BAD_ARG_VALUE);
    sizes[i] = (int32_t)size.items[i];
  }
  MX_CHECK(MX_ARG_aten_view_copy_out, mx_check_sizes(out, sizes, size.len));
  MX_REFUSE_IF(in->numel != out->numel, MX_ARG_aten_view_copy_out, MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_error mx_k_aten_view_copy_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, MX_ARG_aten_view_copy_self), *out = mx_arg_tensor(args, MX_ARG_aten_view_copy_out);
  if (out->numel != 0 && out->data != in->data) {
    memmove(out->data, in->data, (size_t)out->numel * mx_dtype_size(out->dtype));
  }
  return MX_OK;
}
