/* aten::avg_pool2d.out for float32 NCHW or CHW:
 * (self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override?, out, ret).
 * The divisor follows torch: divisor_override if given, else the window clipped to the padded input
 * (count_include_pad) or to the input itself. */
#include "util/mx_args.h"
#include "util/mx_pool2d.h"
#include "util/mx_tensor_util.h"

mx_error mx_k_aten_avg_pool2d_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 9) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *out = NULL;
  mx_pool2d g;
  bool ceil_mode = false, count_pad = true;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_int_pair(args[1], NULL, g.k));
  MX_TRY(mx_arg_int_pair(args[2], g.k, g.s));
  MX_TRY(mx_arg_int_pair(args[3], NULL, g.p));
  g.d[0] = g.d[1] = 1;
  MX_TRY(mx_arg_bool(args[4], &ceil_mode));
  MX_TRY(mx_arg_bool(args[5], &count_pad));
  int64_t divisor = 0;
  if (args[6] == NULL || args[6]->tag != MX_TAG_NULL) {
    MX_TRY(mx_arg_int(args[6], &divisor));
    if (divisor == 0) {
      return MX_ERR_BAD_ARG_VALUE;
    }
  }
  MX_TRY(mx_arg_tensor(args[7], &out));
  MX_TRY(mx_arg_ret_is(args[8], out));
  MX_TRY(mx_check_tensor(in, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(out, MX_DTYPE_F32));
  MX_TRY(mx_pool2d_geometry(&g, in, out, ceil_mode));

  const int32_t IH = (int32_t)g.in_h, IW = (int32_t)g.in_w, OH = (int32_t)g.out_h, OW = (int32_t)g.out_w;
  const int32_t KH = (int32_t)g.k[0], KW = (int32_t)g.k[1], SH = (int32_t)g.s[0], SW = (int32_t)g.s[1];
  const int32_t PH = (int32_t)g.p[0], PW = (int32_t)g.p[1];
  const float *x = (const float *)in->data;
  float *y = (float *)out->data;
  for (uint32_t plane = 0; plane < g.planes; ++plane) {
    const float *xp = x + (size_t)plane * (size_t)(IH * IW);
    for (int32_t oh = 0; oh < OH; ++oh) {
      int32_t h0 = oh * SH - PH;
      int32_t h1 = h0 + KH < IH + PH ? h0 + KH : IH + PH;
      int32_t pool_h = h1 - h0;
      h0 = h0 < 0 ? 0 : h0;
      h1 = h1 < IH ? h1 : IH;
      for (int32_t ow = 0; ow < OW; ++ow) {
        int32_t w0 = ow * SW - PW;
        int32_t w1 = w0 + KW < IW + PW ? w0 + KW : IW + PW;
        int32_t pool_w = w1 - w0;
        w0 = w0 < 0 ? 0 : w0;
        w1 = w1 < IW ? w1 : IW;
        if (h0 >= h1 || w0 >= w1) {
          *y++ = 0.0f;
          continue;
        }
        float sum = 0.0f;
        for (int32_t h = h0; h < h1; ++h) {
          for (int32_t w = w0; w < w1; ++w) {
            sum += xp[h * IW + w];
          }
        }
        int64_t div = divisor != 0 ? divisor
                                   : (count_pad ? (int64_t)pool_h * pool_w : (int64_t)(h1 - h0) * (w1 - w0));
        *y++ = sum / (float)div;
      }
    }
  }
  return MX_OK;
}
