/* aten::view_copy.out, any dtype: (self, size, out, ret). Shapes are static, so `size` must be out's shape
 * and keep the element count; like torch, one entry may be -1, inferred from the element count (ExecuTorch's
 * emitter keeps the -1 of `reshape(3, -1)`, our lowering writes the shape out). The data is copied as is. */
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
  int32_t inferred = -1;
  uint64_t known = 1;
  for (uint32_t i = 0; i < len; ++i) {
    if (size[i] == -1 && inferred < 0) {
      inferred = (int32_t)i;
      continue;
    }
    if (size[i] < 0 || size[i] > INT32_MAX) {
      return MX_ERR_BAD_ARG_VALUE;
    }
    sizes[i] = (int32_t)size[i];
    known *= (uint64_t)size[i];
  }
  if (inferred >= 0) {
    if (known == 0 || in->numel % known != 0) {
      return MX_ERR_BAD_ARG_VALUE;
    }
    sizes[inferred] = (int32_t)(in->numel / known);
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
