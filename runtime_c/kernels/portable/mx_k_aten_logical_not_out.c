/* aten::logical_not.out: (self, out, ret); self of any dtype but float16, out bool of its shape. */
#include "util/mx_args.h"
#include "util/mx_tensor_util.h"
#include "util/mx_truth.h"

#define A(name) MX_ARG_aten_logical_not_##name

mx_arg_error mx_k_aten_logical_not_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_CHECK(A(self), mx_check_contiguous(in));
  MX_REFUSE_IF(in->dtype == MX_DTYPE_F16, A(self), MX_ERR_BAD_DTYPE);
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_BOOL));
  MX_REFUSE_IF(!mx_same_shape(in, out), A(out), MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_error mx_k_aten_logical_not_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  uint8_t *y = (uint8_t *)out->data;
  for (uint32_t i = 0; i < out->numel; ++i) {
    y[i] = !mx_truthy(in->data, in->dtype, i);
  }
  return MX_OK;
}
