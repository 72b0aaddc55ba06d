/* aten::cat.out, any dtype: (tensors, dim, out, ret). Tensors share out's rank and dtype and match it
 * except along dim; 1-D empty tensors are skipped, as torch does for legacy reasons. */
#include <string.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

static bool skipped(const mx_tensor *t) {
  return t->dim == 1 && t->sizes[0] == 0;
}

mx_error mx_k_aten_cat_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 4) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *const *ts = NULL;
  uint32_t n = 0;
  int64_t dim_arg = 0;
  mx_tensor *out = NULL;
  MX_TRY(mx_arg_tensor_list(args[0], &ts, &n));
  MX_TRY(mx_arg_int(args[1], &dim_arg));
  MX_TRY(mx_arg_tensor(args[2], &out));
  MX_TRY(mx_arg_ret_is(args[3], out));
  MX_TRY(mx_check_contiguous(out));
  if (n == 0) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  uint32_t r = out->dim, dim = 0;
  MX_TRY(mx_wrap_dim(dim_arg, r, &dim));
  if (r == 0) {
    return MX_ERR_BAD_SHAPE; /* torch cannot concatenate zero-dim tensors */
  }
  int64_t total = 0;
  bool any = false;
  for (uint32_t i = 0; i < n; ++i) {
    const mx_tensor *t = ts[i];
    MX_TRY(mx_check_contiguous(t));
    if (t->dtype != out->dtype) {
      return MX_ERR_BAD_DTYPE;
    }
    if (skipped(t)) {
      continue;
    }
    if (t->dim != r) {
      return MX_ERR_BAD_SHAPE;
    }
    for (uint32_t d = 0; d < r; ++d) {
      if (d != dim && t->sizes[d] != out->sizes[d]) {
        return MX_ERR_BAD_SHAPE;
      }
    }
    total += t->sizes[dim];
    any = true;
  }
  if (!any) {
    /* every input was an empty 1-D tensor: torch returns one as well */
    return (r == 1 && out->sizes[0] == 0) ? MX_OK : MX_ERR_BAD_SHAPE;
  }
  if (total != out->sizes[dim]) {
    return MX_ERR_BAD_SHAPE;
  }
  size_t elem = mx_dtype_size(out->dtype);
  uint32_t outer = mx_size_prod(out->sizes, 0, dim);
  size_t inner_bytes = (size_t)mx_size_prod(out->sizes, dim + 1, r) * elem;
  uint8_t *dst = (uint8_t *)out->data;
  for (uint32_t o = 0; o < outer; ++o) {
    for (uint32_t i = 0; i < n; ++i) {
      const mx_tensor *t = ts[i];
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
