/* aten::_adaptive_avg_pool2d.out for float32 NCHW or CHW: (self, output_size[2], out, ret).
 * Output cell i averages input [floor(i * in / out), ceil((i + 1) * in / out)), as torch does. A channels-last
 * self may be pooled to 1x1 (the global average pool of a channels-last graph). */
#include "util/mx_args.h"
#include "util/mx_reduce_f32.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_adaptive_avg_pool2d_##name

mx_arg_error mx_k_aten_adaptive_avg_pool2d_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const mx_int_list osz = *mx_arg_int_list(args, A(output_size));
  const bool nhwc = mx_is_channels_last(in);
  if (nhwc) {
    MX_CHECK(A(self), mx_check_dtype(in, MX_DTYPE_F32));
    /* only the 1x1 pool has a channels-last loop; any other is refused as any other dim order is */
    MX_REFUSE_IF(osz.len != 2 || osz.items[0] != 1 || osz.items[1] != 1, A(self), MX_ERR_BAD_ARG_VALUE);
  } else {
    MX_TRY(mx_check_arg_tensor(args, A(self), MX_DTYPE_F32));
  }
  if (mx_channels_last_as_contiguous(out)) {
    MX_CHECK(A(out), mx_check_dtype(out, MX_DTYPE_F32));
  } else {
    MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_F32));
  }
  MX_REFUSE_IF(
      osz.len != 2 || osz.items[0] < 0 || osz.items[1] < 0 || osz.items[0] > INT32_MAX || osz.items[1] > INT32_MAX,
      A(output_size), MX_ERR_BAD_ARG_VALUE);
  uint32_t r = in->dim;
  MX_REFUSE_IF(r != 3 && r != 4, A(self), MX_ERR_BAD_SHAPE);
  int32_t sizes[4];
  for (uint32_t i = 0; i < r - 2; ++i) {
    sizes[i] = in->sizes[i];
  }
  sizes[r - 2] = (int32_t)osz.items[0];
  sizes[r - 1] = (int32_t)osz.items[1];
  MX_CHECK(A(out), mx_check_sizes(out, sizes, r));
  MX_REFUSE_IF(out->numel != 0 && (in->sizes[r - 2] == 0 || in->sizes[r - 1] == 0), A(self), MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_error mx_k_aten_adaptive_avg_pool2d_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  if (mx_is_channels_last(in)) {
    /* the 1x1 pool (checked at load): the sums, then the one division the NCHW loop makes, so the same bits */
    float *y = (float *)out->data;
    mx_reduce_f32_hw_channels_last(in, y);
    const float pixels = (float)((uint32_t)in->sizes[2] * (uint32_t)in->sizes[3]);
    for (uint32_t i = 0; i < out->numel; ++i) {
      y[i] /= pixels;
    }
    return MX_OK;
  }
  const uint32_t r = in->dim;
  const int32_t IH = in->sizes[r - 2], IW = in->sizes[r - 1], OH = out->sizes[r - 2], OW = out->sizes[r - 1];
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
