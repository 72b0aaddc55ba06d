/* aten::constant_pad_nd.out for float32: (self, pad, value, out, ret). pad holds (before, after) pairs
 * from the last dim backwards; a negative pad crops. */
#include <string.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_constant_pad_nd_##name

/* Out's sizes and each dim's leading pad from `pad` ((before, after) pairs from the last dim backwards). */
static mx_error padded(const mx_tensor *in, mx_int_list pad, int32_t before[MX_MAX_DIM], int32_t sizes[MX_MAX_DIM]) {
  uint32_t r = in->dim;
  if (pad.len % 2 != 0 || pad.len / 2 > r) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  for (uint32_t d = 0; d < r; ++d) {
    before[d] = 0;
    sizes[d] = in->sizes[d];
  }
  for (uint32_t i = 0; i < pad.len / 2; ++i) {
    uint32_t d = r - 1 - i;
    int64_t lo = pad.items[2 * i], hi = pad.items[2 * i + 1];
    int64_t s = (int64_t)in->sizes[d] + lo + hi;
    int64_t cropped = (int64_t)in->sizes[d] + (lo < 0 ? lo : 0) + (hi < 0 ? hi : 0);
    /* torch crops before it pads, so the crops alone may not exceed the size */
    if (lo < -(int64_t)INT32_MAX || lo > INT32_MAX || cropped < 0 || s > INT32_MAX) {
      return MX_ERR_BAD_ARG_VALUE;
    }
    before[d] = (int32_t)lo;
    sizes[d] = (int32_t)s;
  }
  return MX_OK;
}

mx_arg_error mx_k_aten_constant_pad_nd_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_TRY(mx_check_arg_tensor(args, A(self), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_F32));
  int32_t before[MX_MAX_DIM], sizes[MX_MAX_DIM];
  MX_CHECK(A(pad), padded(in, *mx_arg_int_list(args, A(pad)), before, sizes));
  MX_CHECK(A(out), mx_check_sizes(out, sizes, in->dim));
  return MX_OK;
}

mx_error mx_k_aten_constant_pad_nd_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  int32_t before[MX_MAX_DIM], sizes[MX_MAX_DIM];
  (void)padded(in, *mx_arg_int_list(args, A(pad)), before, sizes);
  const uint32_t r = in->dim;
  const double value = mx_arg_scalar(args, A(value));
  if (out->numel == 0) {
    return MX_OK;
  }

  /* Row by row along the last dim: a row maps to an input row when every outer index, shifted back
   * by its pad, lands inside the input; within the row, [lo, hi) is copied and the rest filled. */
  const float *x = (const float *)in->data;
  float *y = (float *)out->data;
  float fill = (float)value;
  int32_t ow = r == 0 ? 1 : sizes[r - 1], iw = r == 0 ? 1 : in->sizes[r - 1], b = r == 0 ? 0 : before[r - 1];
  int32_t lo = b > 0 ? b : 0;
  int32_t hi = b + iw < ow ? b + iw : ow;
  uint32_t rows = out->numel / (uint32_t)ow;
  int32_t idx[MX_MAX_DIM] = {0};
  for (uint32_t row = 0; row < rows; ++row) {
    float *yr = y + (size_t)row * (size_t)ow;
    bool inside = lo < hi;
    size_t in_row = 0;
    for (uint32_t d = 0; d + 1 < r && inside; ++d) {
      int32_t i = idx[d] - before[d];
      inside = i >= 0 && i < in->sizes[d];
      in_row = in_row * (size_t)in->sizes[d] + (size_t)i;
    }
    if (!inside) {
      for (int32_t k = 0; k < ow; ++k) yr[k] = fill;
    } else {
      const float *xr = x + in_row * (size_t)iw;
      for (int32_t k = 0; k < lo; ++k) yr[k] = fill;
      memcpy(yr + lo, xr + (lo - b), (size_t)(hi - lo) * sizeof(float));
      for (int32_t k = hi; k < ow; ++k) yr[k] = fill;
    }
    for (uint32_t d = r > 0 ? r - 1 : 0; d-- > 0;) {
      if (++idx[d] < sizes[d]) {
        break;
      }
      idx[d] = 0;
    }
  }
  return MX_OK;
}
