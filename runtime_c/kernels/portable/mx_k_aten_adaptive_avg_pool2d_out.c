/* aten::_adaptive_avg_pool2d.out for float32 NCHW or CHW: (self, output_size[2], out, ret).
 * Output cell i averages input [floor(i * in / out), ceil((i + 1) * in / out)), as torch does. */
#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

mx_error mx_k_aten_adaptive_avg_pool2d_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 4) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *out = NULL;
  const int64_t *osz = NULL;
  uint32_t olen = 0;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_int_list(args[1], &osz, &olen));
  MX_TRY(mx_arg_tensor(args[2], &out));
  MX_TRY(mx_arg_ret_is(args[3], out));
  MX_TRY(mx_check_tensor(in, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(out, MX_DTYPE_F32));
  if (olen != 2 || osz[0] < 0 || osz[1] < 0 || osz[0] > INT32_MAX || osz[1] > INT32_MAX) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  uint32_t r = in->dim;
  if (r != 3 && r != 4) {
    return MX_ERR_BAD_SHAPE;
  }
  int32_t sizes[4];
  for (uint32_t i = 0; i < r - 2; ++i) {
    sizes[i] = in->sizes[i];
  }
  sizes[r - 2] = (int32_t)osz[0];
  sizes[r - 1] = (int32_t)osz[1];
  MX_TRY(mx_check_sizes(out, sizes, r));
  const int32_t IH = in->sizes[r - 2], IW = in->sizes[r - 1], OH = sizes[r - 2], OW = sizes[r - 1];
  if (out->numel != 0 && (IH == 0 || IW == 0)) {
    return MX_ERR_BAD_SHAPE;
  }
  uint32_t planes = mx_size_prod(in->sizes, 0, r - 2);
  const float *x = (const float *)in->data;
  float *y = (float *)out->data;
  for (uint32_t plane = 0; plane < planes; ++plane) {
    const float *xp = x + (size_t)plane * (size_t)IH * (size_t)IW;
    for (int32_t oh = 0; oh < OH; ++oh) {
      /* 64-bit products: i * in may exceed int32 for large planes */
      int32_t h0 = (int32_t)(((int64_t)oh * IH) / OH);
      int32_t h1 = (int32_t)(((int64_t)(oh + 1) * IH + OH - 1) / OH);
      for (int32_t ow = 0; ow < OW; ++ow) {
        int32_t w0 = (int32_t)(((int64_t)ow * IW) / OW);
        int32_t w1 = (int32_t)(((int64_t)(ow + 1) * IW + OW - 1) / OW);
        float sum = 0.0f;
        for (int32_t h = h0; h < h1; ++h) {
          for (int32_t w = w0; w < w1; ++w) {
            sum += xp[h * IW + w];
          }
        }
        *y++ = sum / (float)((h1 - h0) * (w1 - w0));
      }
    }
  }
  return MX_OK;
}
