/* aten::any.out: (self, dim, keepdim, out, ret); self of any dtype but float16, out bool (or uint8 for a
 * uint8 self): whether any element along dim is nonzero. */
#include "util/mx_args.h"
#include "util/mx_tensor_util.h"
#include "util/mx_truth.h"

#define A(name) MX_ARG_aten_any_##name

mx_arg_error mx_k_aten_any_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_CHECK(A(self), mx_check_contiguous(in));
  MX_REFUSE_IF(in->dtype == MX_DTYPE_F16, A(self), MX_ERR_BAD_DTYPE);
  MX_CHECK(A(out), mx_check_contiguous(out));
  /* torch keeps uint8 for a uint8 self (a legacy of masks before bool) */
  MX_REFUSE_IF(out->dtype != MX_DTYPE_BOOL && !(out->dtype == MX_DTYPE_U8 && in->dtype == MX_DTYPE_U8), A(out),
               MX_ERR_BAD_DTYPE);
  uint32_t dim = 0;
  MX_CHECK(A(dim), mx_wrap_dim(mx_arg_int(args, A(dim)), in->dim, &dim));
  const bool keepdim = mx_arg_bool(args, A(keepdim));
  int32_t sizes[MX_MAX_DIM];
  uint32_t n = 0;
  for (uint32_t d = 0; d < in->dim; ++d) {
    if (d != dim) {
      sizes[n++] = in->sizes[d];
    } else if (keepdim) {
      sizes[n++] = 1;
    }
  }
  MX_CHECK(A(out), mx_check_sizes(out, sizes, n));
  return MX_OK;
}

mx_error mx_k_aten_any_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  /* a scalar reduces over itself: one run of one */
  const uint32_t dim = in->dim == 0 ? 0u : mx_wrapped_dim(mx_arg_int(args, A(dim)), in->dim);
  const uint32_t size = in->dim == 0 ? 1u : (uint32_t)in->sizes[dim];
  const uint32_t inner = in->dim == 0 ? 1u : mx_size_prod(in->sizes, dim + 1, in->dim);
  uint8_t *y = (uint8_t *)out->data;
  for (uint32_t i = 0; i < out->numel; ++i) {
    const uint32_t o = i / inner, j = i % inner;
    bool any = false;
    for (uint32_t k = 0; k < size && !any; ++k) {
      any = mx_truthy(in->data, in->dtype, (o * size + k) * inner + j);
    }
    y[i] = any;
  }
  return MX_OK;
}
