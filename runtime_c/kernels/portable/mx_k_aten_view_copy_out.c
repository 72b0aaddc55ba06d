/* aten::view_copy.out, any dtype: (self, size, out, ret). Shapes are static, so `size` must already be
 * out's shape (no -1 left) and keep the element count; the data is copied as is. */
#include <string.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

mx_error mx_k_aten_view_copy_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 4) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *out = NULL;
  const int64_t *size = NULL;
  uint32_t len = 0;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_int_list(args[1], &size, &len));
  MX_TRY(mx_arg_tensor(args[2], &out));
  MX_TRY(mx_arg_ret_is(args[3], out));
  MX_TRY(mx_check_contiguous(in));
  MX_TRY(mx_check_contiguous(out));
  if (in->dtype != out->dtype) {
    return MX_ERR_BAD_DTYPE;
  }
  if (len > MX_MAX_DIM) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  int32_t sizes[MX_MAX_DIM];
  for (uint32_t i = 0; i < len; ++i) {
    if (size[i] < 0 || size[i] > INT32_MAX) {
      return MX_ERR_BAD_ARG_VALUE;
    }
    sizes[i] = (int32_t)size[i];
  }
  MX_TRY(mx_check_sizes(out, sizes, len));
  if (in->numel != out->numel) {
    return MX_ERR_BAD_SHAPE;
  }
  if (out->numel != 0 && out->data != in->data) {
    memmove(out->data, in->data, (size_t)out->numel * mx_dtype_size(out->dtype));
  }
  return MX_OK;
}
