/* aten::cat.out, any dtype: (tensors, dim, out, ret). Tensors share out's rank and dtype and match it
 * except along dim; 1-D empty tensors are skipped, as torch does for legacy reasons. */
#include <string.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

static bool skipped(const mx_tensor *t) { return t->dim == 1 && t->sizes[0] == 0; }

#define A(name) MX_ARG_aten_cat_##name

mx_arg_error mx_k_aten_cat_out_check(mx_value *const *args) {
  const mx_tensor_list ts = mx_arg_tensor_list(args, A(tensors));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  MX_CHECK(A(out), mx_check_contiguous(out));
  MX_REFUSE_IF(ts.len == 0, A(tensors), MX_ERR_BAD_ARG_VALUE);
  uint32_t r = out->dim, dim = 0;
  MX_CHECK(A(dim), mx_wrap_dim(mx_arg_int(args, A(dim)), r, &dim));
  MX_REFUSE_IF(r == 0, A(out), MX_ERR_BAD_SHAPE); /* torch cannot concatenate zero-dim tensors */
  int64_t total = 0;
  bool any = false;
  for (uint32_t i = 0; i < ts.len; ++i) {
    const mx_tensor *t = ts.items[i];
    MX_CHECK(A(tensors), mx_check_contiguous(t));
    MX_REFUSE_IF(t->dtype != out->dtype, A(tensors), MX_ERR_BAD_DTYPE);
    if (skipped(t)) {
      continue;
    }
    MX_REFUSE_IF(t->dim != r, A(tensors), MX_ERR_BAD_SHAPE);
    for (uint32_t d = 0; d < r; ++d) {
      MX_REFUSE_IF(d != dim && t->sizes[d] != out->sizes[d], A(tensors), MX_ERR_BAD_SHAPE);
    }
    total += t->sizes[dim];
    any = true;
  }
  /* every input an empty 1-D tensor: torch returns one as well */
  MX_REFUSE_IF(any ? total != out->sizes[dim] : !(r == 1 && out->sizes[0] == 0), A(out), MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_error mx_k_aten_cat_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor_list ts = mx_arg_tensor_list(args, A(tensors));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  const uint32_t r = out->dim, n = ts.len;
  const uint32_t dim = mx_wrapped_dim(mx_arg_int(args, A(dim)), r);
  size_t elem = mx_dtype_size(out->dtype);
  uint32_t outer = mx_size_prod(out->sizes, 0, dim);
  size_t inner_bytes = (size_t)mx_size_prod(out->sizes, dim + 1, r) * elem;
  uint8_t *dst = (uint8_t *)out->data;
  for (uint32_t o = 0; o < outer; ++o) {
    for (uint32_t i = 0; i < n; ++i) {
      const mx_tensor *t = ts.items[i];
      if (skipped(t)) {
        continue;
      }
      size_t chunk = (size_t)t->sizes[dim] * inner_bytes;
      if (chunk != 0) {
        memcpy(dst, (const uint8_t *)t->data + (size_t)o * chunk, chunk);
        dst += chunk;
      }
    }
  }
  return MX_OK;
}
