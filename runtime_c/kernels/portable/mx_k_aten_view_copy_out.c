/* aten::view_copy.out, any dtype: (self, size, out, ret). Shapes are static, so `size` must be out's shape
 * and keep the element count; like torch, one entry may be -1, inferred from the element count (ExecuTorch's
 * emitter keeps the -1 of `reshape(3, -1)`, our lowering writes the shape out). The data is copied as is. */
#include <string.h>

#include "util/mx_args.h"
#include "util/mx_copy_args.h"
#include "util/mx_tensor_util.h"

mx_arg_error mx_k_aten_view_copy_out_check(mx_value *const *args) {
  MX_TRY(mx_copy_check(args));
  const mx_tensor *in = mx_arg_tensor(args, MX_ARG_aten_view_copy_self),
                  *out = mx_arg_tensor(args, MX_ARG_aten_view_copy_out);
  const mx_int_list size = *mx_arg_int_list(args, MX_ARG_aten_view_copy_size);
  MX_REFUSE_IF(size.len > MX_MAX_DIM, MX_ARG_aten_view_copy_size, MX_ERR_BAD_ARG_VALUE);
  int32_t sizes[MX_MAX_DIM];
  /* One size may be -1 (inferred from the element count), as ExecuTorch's emitter leaves a reshape(3, -1). */
  /* 32-bit arithmetic only: a 64-bit division would link libgcc's __udivmoddi4 (~750 B) into every
   * firmware; a product past numel's 32 bits cannot divide numel anyway. */
  int32_t inferred = -1;
  uint32_t known = 1;
  for (uint32_t i = 0; i < size.len; ++i) {
    if (size.items[i] == -1 && inferred < 0) {
      inferred = (int32_t)i;
      continue;
    }
    MX_REFUSE_IF(size.items[i] < 0 || size.items[i] > INT32_MAX, MX_ARG_aten_view_copy_size, MX_ERR_BAD_ARG_VALUE);
    sizes[i] = (int32_t)size.items[i];
    const uint32_t s = (uint32_t)size.items[i];
    known = (s != 0 && known > UINT32_MAX / s) ? 0 : known * s;   /* 0: no whole size can be inferred */
  }
  if (inferred >= 0) {
    MX_REFUSE_IF(known == 0 || in->numel % known != 0, MX_ARG_aten_view_copy_size, MX_ERR_BAD_ARG_VALUE);
    sizes[inferred] = (int32_t)(in->numel / known);
  }
  MX_CHECK(MX_ARG_aten_view_copy_size, mx_check_sizes(out, sizes, size.len));  /* size must say out's shape */
  MX_REFUSE_IF(in->numel != out->numel, MX_ARG_aten_view_copy_out, MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_error mx_k_aten_view_copy_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, MX_ARG_aten_view_copy_self),
                  *out = mx_arg_tensor(args, MX_ARG_aten_view_copy_out);
  if (out->numel != 0 && out->data != in->data) {
    memmove(out->data, in->data, (size_t)out->numel * mx_dtype_size(out->dtype));
  }
  return MX_OK;
}
