/* aten::avg_pool2d.out for float32 NCHW or CHW:
 * (self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override?, out, ret).
 * The divisor follows torch: divisor_override if given, else the window clipped to the padded input
 * (count_include_pad) or to the input itself. */
#include "util/mx_args.h"
#include "util/mx_planes.h"
#include "util/mx_pool2d.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_avg_pool2d_##name

/* kernel, stride (empty: the kernel), padding; dilation 1. */
static mx_error read_window(mx_value *const *args, mx_pool2d *g, uint32_t *bad) {
  *bad = A(kernel_size);
  MX_TRY(mx_int_pair(*mx_arg_int_list(args, A(kernel_size)), NULL, g->k));
  *bad = A(stride);
  MX_TRY(mx_int_pair(*mx_arg_int_list(args, A(stride)), g->k, g->s));
  *bad = A(padding);
  MX_TRY(mx_int_pair(*mx_arg_int_list(args, A(padding)), NULL, g->p));
  g->d[0] = g->d[1] = 1;
  return MX_OK;
}

mx_arg_error mx_k_aten_avg_pool2d_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  mx_pool2d g;
  uint32_t bad = 0;
  MX_CHECK(bad, read_window(args, &g, &bad));
  MX_REFUSE_IF(!mx_arg_none(args, A(divisor_override)) && mx_arg_int(args, A(divisor_override)) == 0,
               A(divisor_override), MX_ERR_BAD_ARG_VALUE);
  MX_TRY(mx_check_arg_tensor(args, A(self), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_F32));
  mx_pool2d_part part = MX_POOL2D_SHAPE;
  const uint8_t at[5] = {A(kernel_size), A(stride), A(padding), A(padding), A(out)};
  MX_CHECK(at[part], mx_pool2d_geometry(&g, in, out, mx_arg_bool(args, A(ceil_mode)), &part));
  return MX_OK;
}

/* The divisor rule and window of one call. */
typedef struct avg_window {
  int32_t IH, IW, OW, KH, KW, SH, SW, PH, PW;
  bool count_pad;
  int64_t divisor; /* 0: none */
} avg_window;

/* Output row oh of one plane: xp its input plane, y the row. */
static void avg_row(const avg_window *a, const float *xp, float *y, int32_t oh) {
  int32_t h0 = oh * a->SH - a->PH;
  int32_t h1 = h0 + a->KH < a->IH + a->PH ? h0 + a->KH : a->IH + a->PH;
  int32_t pool_h = h1 - h0;
  h0 = h0 < 0 ? 0 : h0;
  h1 = h1 < a->IH ? h1 : a->IH;
  for (int32_t ow = 0; ow < a->OW; ++ow) {
    int32_t w0 = ow * a->SW - a->PW;
    int32_t w1 = w0 + a->KW < a->IW + a->PW ? w0 + a->KW : a->IW + a->PW;
    int32_t pool_w = w1 - w0;
    w0 = w0 < 0 ? 0 : w0;
    w1 = w1 < a->IW ? w1 : a->IW;
    if (h0 >= h1 || w0 >= w1) {
      *y++ = 0.0f;
      continue;
    }
    float sum = 0.0f;
    for (int32_t h = h0; h < h1; ++h) {
      for (int32_t w = w0; w < w1; ++w) {
        sum += xp[h * a->IW + w];
      }
    }
    int64_t div = a->divisor != 0 ? a->divisor
                  : a->count_pad  ? (int64_t)pool_h * pool_w
                                  : (int64_t)(h1 - h0) * (w1 - w0);
    *y++ = sum / (float)div;
  }
}

mx_error mx_k_aten_avg_pool2d_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  mx_pool2d g;
  uint32_t bad;
  (void)read_window(args, &g, &bad);
  mx_pool2d_sizes(&g, in, out);
  const avg_window a = {
      .IH = (int32_t)g.in_h,
      .IW = (int32_t)g.in_w,
      .OW = (int32_t)g.out_w,
      .KH = (int32_t)g.k[0],
      .KW = (int32_t)g.k[1],
      .SH = (int32_t)g.s[0],
      .SW = (int32_t)g.s[1],
      .PH = (int32_t)g.p[0],
      .PW = (int32_t)g.p[1],
      .count_pad = mx_arg_bool(args, A(count_include_pad)),
      .divisor = mx_arg_none(args, A(divisor_override)) ? 0 : mx_arg_int(args, A(divisor_override)),
  };
  /* rows of all planes in order; last to first when the out lies above its input (mx_planes.h) */
  const int32_t OH = (int32_t)g.out_h;
  const size_t rows = (size_t)g.planes * (size_t)OH;
  const bool backward = mx_planes_order_of(in, out) == MX_PLANES_BACKWARD;
  const float *x = (const float *)in->data;
  float *y = (float *)out->data;
  for (size_t i = 0; i < rows; ++i) {
    const size_t r = backward ? rows - 1 - i : i, plane = r / (size_t)OH;
    avg_row(&a, x + plane * (size_t)(a.IH * a.IW), y + r * (size_t)a.OW, (int32_t)(r % (size_t)OH));
  }
  return MX_OK;
}
