/* aten::upsample_bilinear2d.vec_out for float32 NCHW: (input, output_size, align_corners, scale_factors,
 * out, ret). Source coordinates and weights as torch's CPU kernel computes them, in float: align_corners maps the
 * corner pixels onto each other (scale (in - 1) / (out - 1)), otherwise pixel centres ((i + 0.5) * scale - 0.5,
 * clamped at 0), with the scale from scale_factors when given; an axis whose size does not change is copied. */
#include <math.h>

#include "util/mx_tensor_util.h"
#include "util/mx_upsample2d.h"

#define A(name) MX_ARG_aten_upsample_bilinear2d_##name

mx_arg_error mx_k_aten_upsample_bilinear2d_vec_out_check(mx_value *const *args) {
  uint32_t bad = 0;
  MX_CHECK(bad, mx_upsample2d_check(args, A(input), A(output_size), A(scale_factors), A(out), MX_DTYPE_F32, &bad));
  return MX_OK;
}

/* One axis' two source indices and their weights for output index i. */
typedef struct {
  int32_t i0, i1;
  float w0, w1;
} taps;

static taps source_taps(int32_t i, int32_t in, int32_t out, float scale, bool align_corners) {
  if (out == in) {
    return (taps){i, i, 1.0f, 0.0f};
  }
  float src = align_corners ? scale * (float)i : scale * ((float)i + 0.5f) - 0.5f;
  src = src < 0.0f ? 0.0f : src;
  int32_t i0 = (int32_t)floorf(src);
  i0 = i0 < in - 1 ? i0 : in - 1;
  float w1 = src - (float)i0;
  w1 = w1 < 0.0f ? 0.0f : (w1 > 1.0f ? 1.0f : w1);
  return (taps){i0, i0 + (i0 < in - 1 ? 1 : 0), 1.0f - w1, w1};
}

static float axis_scale(mx_value *const *args, int32_t in, int32_t out, uint32_t a) {
  if (mx_arg_bool(args, A(align_corners))) {
    return out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
  }
  return mx_upsample2d_scale(args, A(scale_factors), in, out, a);
}

mx_error mx_k_aten_upsample_bilinear2d_vec_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  const bool align_corners = mx_arg_bool(args, A(align_corners));
  const uint32_t r = in->dim;
  const int32_t IH = in->sizes[r - 2], IW = in->sizes[r - 1], OH = out->sizes[r - 2], OW = out->sizes[r - 1];
  const float scale_h = axis_scale(args, IH, OH, 0), scale_w = axis_scale(args, IW, OW, 1);
  const uint32_t planes = mx_size_prod(in->sizes, 0, r - 2);
  float *y = (float *)out->data;
  for (uint32_t plane = 0; plane < planes; ++plane) {
    const float *xp = (const float *)in->data + (size_t)plane * (size_t)IH * (size_t)IW;
    for (int32_t oh = 0; oh < OH; ++oh) {
      const taps h = source_taps(oh, IH, OH, scale_h, align_corners);
      const float *r0 = xp + (size_t)h.i0 * (size_t)IW, *r1 = xp + (size_t)h.i1 * (size_t)IW;
      for (int32_t ow = 0; ow < OW; ++ow) {
        const taps w = source_taps(ow, IW, OW, scale_w, align_corners);
        *y++ = h.w0 * (w.w0 * r0[w.i0] + w.w1 * r0[w.i1]) + h.w1 * (w.w0 * r1[w.i0] + w.w1 * r1[w.i1]);
      }
    }
  }
  return MX_OK;
}
