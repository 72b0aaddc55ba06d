/* Window ops on NCHW planes with their out over their input (mx_planes.h). Distances count bytes from the input's
 * start to the out's. */
#include "mx_planes.h"

#include "mx_args.h"
#include "mx_pool2d.h"
#include "mx_tensor_util.h"

#define F32 ((int64_t)sizeof(float))

/* Forward, row oy of plane k is written up to its end while the input from the first row its windows read is still
 * to be read (later rows start no earlier); backward, it is written from its start while the input up to the end of
 * the last row its windows read still is. Each distance is the largest such gap over the rows. */
static void distances(const mx_planes *g, int64_t *fwd, int64_t *bwd) {
  const int64_t in_row = (int64_t)g->in_w * F32, out_row = (int64_t)g->out_w * F32;
  *fwd = INT64_MIN;
  *bwd = INT64_MIN;
  const int64_t last = g->planes > 1 ? g->planes - 1 : 1;
  for (int64_t k = 0; k < g->planes; k += last) { /* linear in k: the ends */
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      const int64_t top = (int64_t)oy * g->stride - g->pad, bottom = top + g->span;
      const int64_t lo = top < 0 ? 0 : (top > g->in_h ? g->in_h : top);
      const int64_t hi = bottom < lo ? lo : (bottom > g->in_h ? g->in_h : bottom);
      const int64_t in0 = (k * g->in_h + lo) * in_row, in1 = (k * g->in_h + hi) * in_row;
      const int64_t out0 = (k * g->out_h + oy) * out_row, out1 = out0 + out_row;
      if (out1 - in0 > *fwd) *fwd = out1 - in0;
      if (in1 - out0 > *bwd) *bwd = in1 - out0;
    }
  }
}

mx_planes_order mx_planes_order_of(const mx_tensor *in, const mx_tensor *out) {
  const uintptr_t a = (uintptr_t)in->data, b = (uintptr_t)out->data;
  if (b >= a + mx_tensor_nbytes(in) || a >= b + mx_tensor_nbytes(out)) return MX_PLANES_APART;
  return b <= a ? MX_PLANES_FORWARD : MX_PLANES_BACKWARD;
}

bool mx_planes_fits(const mx_planes *g, const void *in, const void *out) {
  if (g->planes * g->out_h * g->out_w == 0) return false;
  int64_t fwd, bwd;
  distances(g, &fwd, &bwd);
  const int64_t delta = (int64_t)((intptr_t)in - (intptr_t)out); /* > 0: the out starts below the input */
  return (delta >= 0 && delta >= fwd) || (delta <= 0 && -delta >= bwd);
}

#define C(name) MX_ARG_aten_convolution_##name

bool mx_planes_convolution_overlap(mx_value *const *args, uint32_t arg, uint32_t out) {
  const mx_tensor *x = mx_arg_tensor(args, C(input)), *w = mx_arg_tensor(args, C(weight));
  const mx_tensor *y = mx_arg_tensor(args, out);
  if (arg != C(input) || x->dim != 4 || mx_arg_bool(args, C(transposed))) return false;
  const bool rows = mx_is_channels_last(x) && mx_is_channels_last(y);
  if (!rows && (mx_is_channels_last(x) || mx_is_channels_last(y)))
    return false; /* one NHWC, one NCHW: no order keeps them apart */
  const int64_t groups = mx_arg_int(args, C(groups));
  int64_t stride[2], pad[2], dil[2]; /* (h, w); the lists were checked at load */
  (void)mx_int_pair(*mx_arg_int_list(args, C(stride)), NULL, stride);
  (void)mx_int_pair(*mx_arg_int_list(args, C(padding)), NULL, pad);
  (void)mx_int_pair(*mx_arg_int_list(args, C(dilation)), NULL, dil);
  const int32_t k_h = w->sizes[2], k_w = w->sizes[3];
  if (!rows) {
    if (groups != x->sizes[1] || groups != y->sizes[1]) return false; /* each output plane reads its input plane */
    if (k_h == 1 && k_w == 1 && stride[0] == 1 && stride[1] == 1 && pad[0] == 0 && pad[1] == 0) return false;
  }
  /* NHWC: one plane per image, a row holding every channel of its pixels; NCHW: a plane per channel */
  const int32_t in_row = rows ? x->sizes[3] * x->sizes[1] : x->sizes[3];
  const int32_t out_row = rows ? y->sizes[3] * y->sizes[1] : y->sizes[3];
  const mx_planes g = {rows ? x->sizes[0] : (int64_t)x->sizes[0] * x->sizes[1],
                       x->sizes[2],
                       in_row,
                       y->sizes[2],
                       out_row,
                       (int32_t)stride[0],
                       (int32_t)pad[0],
                       (int32_t)(dil[0] * (k_h - 1) + 1)};
  return mx_planes_fits(&g, x->data, y->data);
}

#define P(name) MX_ARG_aten_avg_pool2d_##name

bool mx_planes_avg_pool2d_overlap(mx_value *const *args, uint32_t arg, uint32_t out) {
  const mx_tensor *x = mx_arg_tensor(args, P(self)), *y = mx_arg_tensor(args, out);
  if (arg != P(self)) return false;
  mx_pool2d p;
  if (mx_int_pair(*mx_arg_int_list(args, P(kernel_size)), NULL, p.k) != MX_OK ||
      mx_int_pair(*mx_arg_int_list(args, P(stride)), p.k, p.s) != MX_OK ||
      mx_int_pair(*mx_arg_int_list(args, P(padding)), NULL, p.p) != MX_OK) {
    return false;
  }
  mx_pool2d_sizes(&p, x, y);
  const mx_planes g = {p.planes,         (int32_t)p.in_h, (int32_t)p.in_w, (int32_t)p.out_h,
                       (int32_t)p.out_w, (int32_t)p.s[0], (int32_t)p.p[0], (int32_t)p.k[0]};
  return mx_planes_fits(&g, x->data, y->data);
}
