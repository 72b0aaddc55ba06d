/* aten::convolution.out for float32: 2-D NCHW (and 1-D NCL, run as H = 1) direct convolution with
 * stride, padding, dilation and groups (depthwise included), and the transposed convolution
 * (nn.ConvTranspose1d/2d) with the same parameters and output_padding. A 2-D convolution's input and out may
 * each be channels-last (NHWC memory), which lets its out overlap its input row by row (mx_planes.h). */
#include "util/mx_args.h"
#include "util/mx_conv2d_f32.h"
#include "util/mx_conv_transpose2d_f32.h"
#include "util/mx_planes.h"
#include "util/mx_tensor_util.h"

#define MX_PARAM_MAX (1 << 20)

#define A(name) MX_ARG_aten_convolution_##name

_Static_assert(A(padding) == A(stride) + 1 && A(dilation) == A(stride) + 2, "stride, padding, dilation in a row");

/* stride, padding, dilation as (h, w): each list of one value (repeated) or one per spatial dim, each value
 * at least 1 (padding 0) and at most MX_PARAM_MAX, which keeps every index within int32. A 1-D convolution
 * runs as H = 1 with the neutral value for h. */
static mx_arg_error read_params(mx_value *const *args, uint32_t spatial, int32_t p[3][2]) {
  for (uint32_t j = 0; j < 3; ++j) {
    const mx_int_list *l = mx_arg_int_list(args, A(stride) + j);
    const int64_t lo = j == 1 ? 0 : 1;
    MX_REFUSE_IF(l->len != 1 && l->len != spatial, A(stride) + j, MX_ERR_BAD_ARG_VALUE);
    const int64_t h = spatial == 2 ? l->items[0] : lo, w = l->items[l->len - 1];
    MX_REFUSE_IF(h < lo || w < lo || h > MX_PARAM_MAX || w > MX_PARAM_MAX, A(stride) + j, MX_ERR_BAD_ARG_VALUE);
    p[j][0] = (int32_t)h;
    p[j][1] = (int32_t)w;
  }
  return MX_OK;
}

/* output_padding as (h, w), one value or one per spatial dim: only a transposed convolution reads it, and
 * torch takes each below its stride or its dilation (it picks one of the output sizes the stride leaves open). */
static mx_arg_error read_output_padding(mx_value *const *args, uint32_t spatial, const int32_t p[3][2], int32_t op[2]) {
  const mx_int_list *l = mx_arg_int_list(args, A(output_padding));
  MX_REFUSE_IF(l->len != 1 && l->len != spatial, A(output_padding), MX_ERR_BAD_ARG_VALUE);
  const int64_t v[2] = {spatial == 2 ? l->items[0] : 0, l->items[l->len - 1]};
  for (uint32_t a = 0; a < 2; ++a) {
    MX_REFUSE_IF(v[a] < 0 || (v[a] >= p[0][a] && v[a] >= p[2][a]), A(output_padding), MX_ERR_BAD_ARG_VALUE);
    op[a] = (int32_t)v[a];
  }
  return MX_OK;
}

/* One output size: a convolution's windows over the padded input, or a transposed convolution's span,
 * (in - 1) * stride - 2 * pad + dil * (k - 1) + output_padding + 1; <= 0 when there is no output. */
static int32_t out_size(bool transposed, int32_t in, int32_t k, int32_t stride, int32_t pad, int32_t dil, int32_t op) {
  /* 64-bit: sizes and parameters fit int32, their sums need not */
  const int64_t span = (int64_t)dil * (k - 1) + 1;
  if (transposed) {
    const int64_t n = ((int64_t)in - 1) * stride - 2 * (int64_t)pad + span + op;
    return n < 1 || n > INT32_MAX ? 0 : (int32_t)n;
  }
  const int64_t room = (int64_t)in + 2 * (int64_t)pad - span;
  /* room < 2^31 + 2^21 (in fits int32, pad <= MX_PARAM_MAX): a 32-bit division, not libgcc's 746-byte 64-bit one */
  return room < 0 ? 0 : (int32_t)((uint32_t)room / (uint32_t)stride + 1u);
}

/* The loop nest's shape; out_h/out_w <= 0 when there is no output. A transposed weight is
 * [c_in, c_out / groups, k_h, k_w]. */
static mx_conv2d_f32_shape conv_shape(mx_value *const *args, const int32_t p[3][2], const int32_t op[2]) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *w = mx_arg_tensor(args, A(weight));
  const bool two = in->dim == 4, transposed = mx_arg_bool(args, A(transposed));
  const int32_t in_h = two ? in->sizes[2] : 1, in_w = in->sizes[in->dim - 1];
  const int32_t k_h = two ? w->sizes[2] : 1, k_w = w->sizes[w->dim - 1];
  const int32_t groups = (int32_t)mx_arg_int(args, A(groups));
  return (mx_conv2d_f32_shape){
      .c_in = in->sizes[1],
      .in_h = in_h,
      .in_w = in_w,
      .c_out = transposed ? w->sizes[1] * groups : w->sizes[0],
      .out_h = out_size(transposed, in_h, k_h, p[0][0], p[1][0], p[2][0], op[0]),
      .out_w = out_size(transposed, in_w, k_w, p[0][1], p[1][1], p[2][1], op[1]),
      .k_h = k_h,
      .k_w = k_w,
      .groups = groups,
      .stride = {p[0][0], p[0][1]},
      .pad = {p[1][0], p[1][1]},
      .dil = {p[2][0], p[2][1]},
  };
}

/* Float32, contiguous or (a 2-D convolution's) channels-last. */
static mx_arg_error check_image(mx_value *const *args, uint32_t i) {
  if (mx_arg_bool(args, A(transposed))) return mx_check_arg_tensor(args, i, MX_DTYPE_F32);
  MX_CHECK(i, mx_check_tensor_or_channels_last(mx_arg_tensor(args, i), MX_DTYPE_F32));
  return MX_OK;
}

mx_arg_error mx_k_aten_convolution_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *w = mx_arg_tensor(args, A(weight));
  const mx_tensor *bias = mx_arg_opt_tensor(args, A(bias)), *out = mx_arg_tensor(args, A(out));
  MX_TRY(check_image(args, A(input)));
  MX_TRY(mx_check_arg_tensor(args, A(weight), MX_DTYPE_F32));
  MX_TRY(check_image(args, A(out)));
  if (bias != NULL) {
    MX_TRY(mx_check_arg_tensor(args, A(bias), MX_DTYPE_F32));
  }
  MX_REFUSE_IF(in->dim == 5, A(input), MX_ERR_UNSUPPORTED); /* 3-D convolution */
  MX_REFUSE_IF(in->dim != 3 && in->dim != 4, A(input), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(w->dim != in->dim, A(weight), MX_ERR_BAD_SHAPE);
  const bool transposed = mx_arg_bool(args, A(transposed));
  int32_t p[3][2], op[2] = {0, 0};
  MX_TRY(read_params(args, in->dim - 2u, p));
  if (transposed) {
    MX_TRY(read_output_padding(args, in->dim - 2u, p, op));
  }
  const int64_t groups = mx_arg_int(args, A(groups));
  MX_REFUSE_IF(groups < 1 || groups > INT32_MAX, A(groups), MX_ERR_BAD_ARG_VALUE);
  /* a transposed convolution's output channels are the weight's per-group ones times groups */
  MX_REFUSE_IF(transposed && (int64_t)w->sizes[1] * groups > INT32_MAX, A(groups), MX_ERR_BAD_ARG_VALUE);
  const mx_conv2d_f32_shape s = conv_shape(args, p, op);
  MX_REFUSE_IF(s.k_h < 1 || s.k_w < 1 || s.out_h < 1 || s.out_w < 1, A(weight), MX_ERR_BAD_SHAPE);
  /* the weight's group dimension: output channels of a convolution, input channels of a transposed one */
  const int32_t grouped = transposed ? s.c_out : s.c_in, whole = transposed ? s.c_in : s.c_out;
  const int32_t g = (int32_t)groups; /* in range, checked above: 32-bit division from here */
  MX_REFUSE_IF(s.c_in % g != 0 || s.c_out % g != 0, A(groups), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(w->sizes[0] != whole || w->sizes[1] != grouped / g, A(weight), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(bias != NULL && (bias->dim != 1 || bias->sizes[0] != s.c_out), A(bias), MX_ERR_BAD_SHAPE);
  int32_t sizes[4] = {in->sizes[0], s.c_out, s.out_h, s.out_w};
  if (in->dim == 3) {
    sizes[2] = s.out_w;
  }
  MX_CHECK(A(out), mx_check_sizes(out, sizes, in->dim));
  return MX_OK;
}

/* Element steps of one image of x and of y as their dim orders lay them out. */
static mx_conv2d_f32_layout layout(const mx_conv2d_f32_shape *s, const mx_tensor *x, const mx_tensor *y) {
  mx_conv2d_f32_layout l;
  mx_conv2d_f32_nchw(s, &l);
  if (mx_is_channels_last(x)) {
    l.x_c = 1, l.x_row = s->in_w * s->c_in, l.x_px = s->c_in;
  }
  if (mx_is_channels_last(y)) {
    l.y_c = 1, l.y_row = s->out_w * s->c_out, l.y_px = s->c_out;
  }
  return l;
}

/* The order to write in: the fastest apart; over the input only where the loader found the rule of the layout
 * holds (mx_planes_convolution_overlap): row by row in NHWC, plane by plane in NCHW. */
static mx_conv2d_f32_order write_order(const mx_tensor *in, const mx_tensor *out) {
  const mx_planes_order o = mx_planes_order_of(in, out);
  if (o == MX_PLANES_APART) return MX_CONV_FAST;
  if (mx_is_channels_last(in)) return o == MX_PLANES_BACKWARD ? MX_CONV_ROWS_BACKWARD : MX_CONV_ROWS;
  return o == MX_PLANES_BACKWARD ? MX_CONV_PLANES_BACKWARD : MX_CONV_PLANES;
}

mx_error mx_k_aten_convolution_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *w = mx_arg_tensor(args, A(weight));
  const mx_tensor *bias = mx_arg_opt_tensor(args, A(bias)), *out = mx_arg_tensor(args, A(out));
  const bool transposed = mx_arg_bool(args, A(transposed));
  int32_t p[3][2], op[2] = {0, 0};
  (void)read_params(args, in->dim - 2u, p); /* checked at load */
  if (transposed) {
    (void)read_output_padding(args, in->dim - 2u, p, op);
  }
  const mx_conv2d_f32_shape shape = conv_shape(args, p, op);
  const int32_t n_batch = in->sizes[0];
  const size_t in_image = (size_t)shape.c_in * (size_t)(shape.in_h * shape.in_w);
  const size_t out_image = (size_t)shape.c_out * (size_t)(shape.out_h * shape.out_w);
  const float *b = bias != NULL ? (const float *)bias->data : NULL;
  const mx_conv2d_f32_order order = transposed ? MX_CONV_FAST : write_order(in, out);
  const bool backward = order == MX_CONV_PLANES_BACKWARD || order == MX_CONV_ROWS_BACKWARD;
  const mx_conv2d_f32_layout l = layout(&shape, in, out);
  for (int32_t i = 0; i < n_batch; ++i) {
    const int32_t n = backward ? n_batch - 1 - i : i;
    const float *x = (const float *)in->data + (size_t)n * in_image;
    float *y = (float *)out->data + (size_t)n * out_image;
    if (transposed) {
      mx_conv_transpose2d_f32(&shape, x, (const float *)w->data, b, y);
    } else {
      mx_conv2d_f32(&shape, &l, x, (const float *)w->data, b, y, order);
    }
  }
  return MX_OK;
}
