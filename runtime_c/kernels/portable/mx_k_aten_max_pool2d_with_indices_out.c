/* aten::max_pool2d_with_indices.out for float32 NCHW or CHW:
 * (self, kernel_size, stride, padding, dilation, ceil_mode, out, indices, ret=[out, indices]).
 * indices (int64) hold h * W + w within the input plane, as torch computes them: the first maximum
 * wins, a NaN counts as a maximum, and an all -inf window points at its first in-bounds element. */
#include <math.h>

#include "util/mx_args.h"
#include "util/mx_pool2d.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_max_pool2d_with_indices_##name

/* kernel, stride (empty: the kernel), padding, dilation. */
static mx_error read_window(mx_value *const *args, mx_pool2d *g, uint32_t *bad) {
  *bad = A(kernel_size);
  MX_TRY(mx_int_pair(*mx_arg_int_list(args, A(kernel_size)), NULL, g->k));
  *bad = A(stride);
  MX_TRY(mx_int_pair(*mx_arg_int_list(args, A(stride)), g->k, g->s));
  *bad = A(padding);
  MX_TRY(mx_int_pair(*mx_arg_int_list(args, A(padding)), NULL, g->p));
  *bad = A(dilation);
  return mx_int_pair(*mx_arg_int_list(args, A(dilation)), NULL, g->d);
}

mx_arg_error mx_k_aten_max_pool2d_with_indices_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const mx_tensor *idx = mx_arg_tensor(args, A(indices));
  mx_pool2d g;
  uint32_t bad = 0;
  MX_CHECK(bad, read_window(args, &g, &bad));
  MX_TRY(mx_check_arg_tensor(args, A(self), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(indices), MX_DTYPE_I64));
  mx_pool2d_part part = MX_POOL2D_SHAPE;
  const uint8_t at[5] = {A(kernel_size), A(stride), A(padding), A(dilation), A(out)};
  MX_CHECK(at[part], mx_pool2d_geometry(&g, in, out, mx_arg_bool(args, A(ceil_mode)), &part));
  MX_REFUSE_IF(!mx_same_shape(idx, out), A(indices), MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_error mx_k_aten_max_pool2d_with_indices_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const mx_tensor *idx = mx_arg_tensor(args, A(indices));
  mx_pool2d g;
  uint32_t bad;
  (void)read_window(args, &g, &bad);
  mx_pool2d_sizes(&g, in, out);

  const int32_t IH = (int32_t)g.in_h, IW = (int32_t)g.in_w, OH = (int32_t)g.out_h, OW = (int32_t)g.out_w;
  const int32_t KH = (int32_t)g.k[0], KW = (int32_t)g.k[1], SH = (int32_t)g.s[0], SW = (int32_t)g.s[1];
  const int32_t PH = (int32_t)g.p[0], PW = (int32_t)g.p[1], DH = (int32_t)g.d[0], DW = (int32_t)g.d[1];
  const float *x = (const float *)in->data;
  float *y = (float *)out->data;
  int64_t *yi = (int64_t *)idx->data;
  for (uint32_t plane = 0; plane < g.planes; ++plane) {
    const float *xp = x + (size_t)plane * (size_t)(IH * IW);
    for (int32_t oh = 0; oh < OH; ++oh) {
      int32_t h0 = oh * SH - PH;
      int32_t h1 = h0 + (KH - 1) * DH + 1;
      h1 = h1 < IH ? h1 : IH;
      while (h0 < 0) {
        h0 += DH;
      }
      for (int32_t ow = 0; ow < OW; ++ow) {
        int32_t w0 = ow * SW - PW;
        int32_t w1 = w0 + (KW - 1) * DW + 1;
        w1 = w1 < IW ? w1 : IW;
        while (w0 < 0) {
          w0 += DW;
        }
        float best = -INFINITY;
        int32_t best_i = h0 * IW + w0;
        for (int32_t h = h0; h < h1; h += DH) {
          for (int32_t w = w0; w < w1; w += DW) {
            float v = xp[h * IW + w];
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
