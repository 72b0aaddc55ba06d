/* aten::view_copy.out, any dtype: (self, size, out, ret). Shapes are static, so `size` must already be
 * out's shape (no -1 left) and keep the element count; the data is copied as is. */
#include <string.h>

#include "util/mx_args.h"
#include "util/mx_copy_args.h"
#include "util/mx_tensor_util.h"

mx_error mx_k_aten_view_copy_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  mx_tensor *in = NULL, *out = NULL;
  const int64_t *size = NULL;
  uint32_t len = 0;
  MX_TRY(mx_copy_args(args, nargs, &in, &size, &len, &out));
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
