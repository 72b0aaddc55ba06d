/* aten::clone.out, any dtype: (self, memory_format?, out, ret). Every planned tensor is contiguous, so
 * the formats that keep it so (none, contiguous, preserve) are one byte copy. */
#include <string.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_clone_##name

/* c10::MemoryFormat: Contiguous 0, Preserve 1 (ChannelsLast 2 would need a permuted out). */
enum { MX_MEMORY_FORMAT_CONTIGUOUS = 0, MX_MEMORY_FORMAT_PRESERVE = 1 };

mx_arg_error mx_k_aten_clone_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_CHECK(A(self), mx_check_contiguous(in));
  MX_CHECK(A(out), mx_check_contiguous(out));
  MX_REFUSE_IF(in->dtype != out->dtype, A(out), MX_ERR_BAD_DTYPE);
  if (!mx_arg_none(args, A(memory_format))) {
    const int64_t f = mx_arg_int(args, A(memory_format));
    MX_REFUSE_IF(f != MX_MEMORY_FORMAT_CONTIGUOUS && f != MX_MEMORY_FORMAT_PRESERVE, A(memory_format),
                 MX_ERR_BAD_ARG_VALUE);
  }
  MX_REFUSE_IF(!mx_same_shape(in, out), A(out), MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_error mx_k_aten_clone_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  if (in->numel != 0 && in->data != out->data) {
    memcpy(out->data, in->data, (size_t)in->numel * mx_dtype_size(in->dtype));
  }
  return MX_OK;
}
