/* aten::adaptive_max_pool2d.out for float32 NCHW or CHW: (self, output_size[2], out, indices, ret=[out, indices]).
 * Output cell i takes the maximum of input [floor(i * in / out), ceil((i + 1) * in / out)); indices (int64) hold
 * h * W + w within the input plane, as torch computes them: the first maximum wins and a NaN counts as one. */
#include <math.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_adaptive_max_pool2d_##name

mx_arg_error mx_k_aten_adaptive_max_pool2d_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const mx_int_list osz = *mx_arg_int_list(args, A(output_size));
  MX_TRY(mx_check_arg_tensor(args, A(self), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(indices), MX_DTYPE_I64));
  MX_REFUSE_IF(
      osz.len != 2 || osz.items[0] < 1 || osz.items[1] < 1 || osz.items[0] > INT32_MAX || osz.items[1] > INT32_MAX,
      A(output_size), MX_ERR_BAD_ARG_VALUE);
  const uint32_t r = in->dim;
  MX_REFUSE_IF(r != 3 && r != 4, A(self), MX_ERR_BAD_SHAPE);
  /* torch: every window holds at least one element */
  MX_REFUSE_IF(in->sizes[r - 2] == 0 || in->sizes[r - 1] == 0, A(self), MX_ERR_BAD_SHAPE);
  int32_t sizes[4];
  for (uint32_t i = 0; i < r - 2; ++i) {
    sizes[i] = in->sizes[i];
  }
  sizes[r - 2] = (int32_t)osz.items[0];
  sizes[r - 1] = (int32_t)osz.items[1];
  MX_CHECK(A(out), mx_check_sizes(out, sizes, r));
  MX_CHECK(A(indices), mx_check_sizes(mx_arg_tensor(args, A(indices)), sizes, r));
  return MX_OK;
}

mx_error mx_k_aten_adaptive_max_pool2d_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const uint32_t r = in->dim;
  const int32_t IH = in->sizes[r - 2], IW = in->sizes[r - 1], OH = out->sizes[r - 2], OW = out->sizes[r - 1];
  const uint32_t planes = mx_size_prod(in->sizes, 0, r - 2);
  float *y = (float *)out->data;
  int64_t *yi = (int64_t *)mx_arg_tensor(args, A(indices))->data;
  for (uint32_t plane = 0; plane < planes; ++plane) {
    const float *xp = (const float *)in->data + (size_t)plane * (size_t)IH * (size_t)IW;
    for (int32_t oh = 0; oh < OH; ++oh) {
      /* 64-bit products: i * in may exceed int32 for large planes */
      const int32_t h0 = (int32_t)(((int64_t)oh * IH) / OH);
      const int32_t h1 = (int32_t)(((int64_t)(oh + 1) * IH + OH - 1) / OH);
      for (int32_t ow = 0; ow < OW; ++ow) {
        const int32_t w0 = (int32_t)(((int64_t)ow * IW) / OW);
        const int32_t w1 = (int32_t)(((int64_t)(ow + 1) * IW + OW - 1) / OW);
        float best = -INFINITY;
        int32_t best_i = h0 * IW + w0;
        for (int32_t h = h0; h < h1; ++h) {
          for (int32_t w = w0; w < w1; ++w) {
            const float v = xp[h * IW + w];
            if (v > best || isnan(v)) {
              best = v;
              best_i = h * IW + w;
            }
          }
        }
        *y++ = best;
        *yi++ = best_i;
      }
    }
  }
  return MX_OK;
}
