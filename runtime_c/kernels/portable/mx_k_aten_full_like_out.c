/* aten::full_like.out, any dtype but float16: (self, fill_value, memory_format?, out, ret): out has self's
 * shape (its dtype may differ; self's values are not read). Body: util/mx_fill.c. */
#include "util/mx_args.h"
#include "util/mx_fill.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_full_like_##name

mx_arg_error mx_k_aten_full_like_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_CHECK(A(self), mx_check_contiguous(in));
  MX_REFUSE_IF(in->dtype == MX_DTYPE_F16, A(self), MX_ERR_BAD_DTYPE);
  MX_CHECK(A(out), mx_check_contiguous(out));
  MX_CHECK(A(out), mx_fill_check(out));
  /* planned tensors are contiguous: contiguous (0) and preserve (1) are the formats they already have */
  MX_REFUSE_IF(!mx_arg_none(args, A(memory_format)) && (uint64_t)mx_arg_int(args, A(memory_format)) > 1u,
               A(memory_format), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(!mx_same_shape(in, out), A(out), MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_error mx_k_aten_full_like_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  mx_fill(mx_arg_tensor(args, A(out)), args[A(fill_value)]);
  return MX_OK;
}
