/* cortex_m::quantized_upsample_bilinear2d.out: bilinear upsampling of int8 [N, C, H, W] (any dim order,
 * out's the input's) whose input and output share one scale and zero point. CMSIS-NN has no resize; the
 * arithmetic is TOSA's RESIZE BILINEAR, written down (and held bit-exact by the tests) in
 * mcu_export/int8/reference/bilinear.py: per axis an exact rational source position (scale_n, scale_d,
 * offset from the sizes and align_corners), integer weights summing to scale_n, an int32 weighted sum, then
 * one exact division by scale_n_h * scale_n_w, rounding half up, in place of TOSA's RESCALE (the qparams are
 * shared, so nothing else changes). */
#include "util/mx_cm_args.h"

#define MX_CM_BILINEAR_MAX_SIDE (1 << 29)
#define A(name) MX_ARG_cortex_m_quantized_upsample_bilinear2d_##name
#define MX_CM_BILINEAR_MAX_WEIGHT (1 << 22) /* scale_n_h * scale_n_w: keeps floor_div's operands in int32 */

typedef struct {
  int32_t n, d, offset;
} axis_scale;

static int32_t gcd(int32_t a, int32_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    const int32_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* Output o reads input position (o * d + offset) / n. */
static axis_scale axis_of(int32_t in, int32_t out, bool align_corners) {
  axis_scale s;
  if (align_corners) {
    s = (axis_scale){out > 1 ? out - 1 : 1, out > 1 ? in - 1 : 0, 0};
  } else {
    s = (axis_scale){2 * out, 2 * in, in - out};
  }
  const int32_t g = gcd(gcd(s.n, s.d), s.offset);
  return g == 0 ? s : (axis_scale){s.n / g, s.d / g, s.offset / g}; /* 0: an empty axis in and out */
}

/* C's / truncates; the source index is the floor. */
static int32_t floor_div(int32_t a, int32_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

static void element_strides(const mx_tensor *t, int32_t strides[4]) {
  int32_t step = 1;
  for (int32_t k = 3; k >= 0; --k) {
    strides[t->dim_order[k]] = step;
    step *= t->sizes[t->dim_order[k]];
  }
}

mx_arg_error mx_k_cortex_m_quantized_upsample_bilinear2d_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  MX_REFUSE_IF(in->dtype != MX_DTYPE_I8, A(input), MX_ERR_BAD_DTYPE); /* any dim order: strides follow it */
  MX_REFUSE_IF(out->dtype != MX_DTYPE_I8, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(in->dim != 4, A(input), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(out->dim != 4 || out->sizes[0] != in->sizes[0] || out->sizes[1] != in->sizes[1], A(out),
               MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(in->numel == 0 && out->numel != 0, A(input), MX_ERR_BAD_SHAPE);
  /* 2 * size below stays in int32 */
  for (uint32_t d = 2; d < 4; ++d) {
    MX_REFUSE_IF(in->sizes[d] > MX_CM_BILINEAR_MAX_SIDE, A(input), MX_ERR_BAD_SHAPE);
    MX_REFUSE_IF(out->sizes[d] > MX_CM_BILINEAR_MAX_SIDE, A(out), MX_ERR_BAD_SHAPE);
  }
  const bool align = mx_arg_bool(args, A(align_corners));
  const axis_scale sy = axis_of(in->sizes[2], out->sizes[2], align);
  const axis_scale sx = axis_of(in->sizes[3], out->sizes[3], align);
  MX_REFUSE_IF((int64_t)sy.n * sx.n > MX_CM_BILINEAR_MAX_WEIGHT, A(out), MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_error mx_k_cortex_m_quantized_upsample_bilinear2d_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input));
  mx_tensor *out = mx_arg_tensor(args, A(out));
  if (out->numel == 0) {
    return MX_OK;
  }
  /* 2 * size below stays in int32 */
  for (uint32_t d = 2; d < 4; ++d) {
    MX_REFUSE_IF(in->sizes[d] > MX_CM_BILINEAR_MAX_SIDE, A(input), MX_ERR_BAD_SHAPE);
    MX_REFUSE_IF(out->sizes[d] > MX_CM_BILINEAR_MAX_SIDE, A(out), MX_ERR_BAD_SHAPE);
  }
  const bool align = mx_arg_bool(args, A(align_corners));
  const int32_t in_h = in->sizes[2], in_w = in->sizes[3], out_h = out->sizes[2], out_w = out->sizes[3];
  const axis_scale sy = axis_of(in_h, out_h, align), sx = axis_of(in_w, out_w, align);
  const int32_t weight = sy.n * sx.n;
  int32_t is[4], os[4];
  element_strides(in, is);
  element_strides(out, os);
  const int8_t *src = (const int8_t *)in->data;
  int8_t *dst = (int8_t *)out->data;
  for (int32_t oy = 0; oy < out_h; ++oy) {
    const int32_t y = oy * sy.d + sy.offset, y0 = floor_div(y, sy.n), dy = y - y0 * sy.n;
    const int32_t r0 = (y0 < 0 ? 0 : y0) * is[2], r1 = (y0 + 1 < in_h ? y0 + 1 : in_h - 1) * is[2];
    for (int32_t ox = 0; ox < out_w; ++ox) {
      const int32_t x = ox * sx.d + sx.offset, x0 = floor_div(x, sx.n), dx = x - x0 * sx.n;
      const int32_t c0 = (x0 < 0 ? 0 : x0) * is[3], c1 = (x0 + 1 < in_w ? x0 + 1 : in_w - 1) * is[3];
      const int32_t w00 = (sy.n - dy) * (sx.n - dx), w01 = (sy.n - dy) * dx, w10 = dy * (sx.n - dx), w11 = dy * dx;
      for (int32_t b = 0; b < in->sizes[0]; ++b) {
        for (int32_t c = 0; c < in->sizes[1]; ++c) {
          const int8_t *p = src + b * is[0] + c * is[1];
          const int32_t acc = p[r0 + c0] * w00 + p[r0 + c1] * w01 + p[r1 + c0] * w10 + p[r1 + c1] * w11;
          dst[b * os[0] + c * os[1] + oy * os[2] + ox * os[3]] = (int8_t)floor_div(2 * acc + weight, 2 * weight);
        }
      }
    }
  }
  return MX_OK;
}
