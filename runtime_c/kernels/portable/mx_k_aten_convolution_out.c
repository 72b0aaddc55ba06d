/* aten::convolution.out for float32: 2-D NCHW (and 1-D NCL, run as H = 1) direct convolution with
 * stride, padding, dilation and groups (depthwise included). Transposed convolution is not supported. */
#include "util/mx_args.h"
#include "util/mx_conv2d_f32.h"
#include "util/mx_tensor_util.h"

#define MX_PARAM_MAX (1 << 20)

#define A(name) MX_ARG_aten_convolution_##name

/* A per-dim list of the spatial rank: one value repeats, else one per spatial dim. Fills (h, w). */
static mx_error spatial_param(mx_int_list l, uint32_t spatial, int64_t out[2], int64_t h_default) {
  if (l.len == 1) {
    out[0] = spatial == 2 ? l.items[0] : h_default;
    out[1] = l.items[0];
  } else if (l.len == spatial) {
    out[0] = spatial == 2 ? l.items[0] : h_default;
    out[1] = l.items[l.len - 1];
  } else {
    return MX_ERR_BAD_ARG_VALUE;
  }
  return MX_OK;
}

/* The loop nest's shape from the arguments; every check but the output size is the caller's. */
static mx_error conv_shape(mx_value *const *args, mx_conv2d_f32_shape *s, uint32_t *bad) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *w = mx_arg_tensor(args, A(weight));
  uint32_t spatial = in->dim - 2u;
  int64_t stride[2], pad[2], dil[2];
  *bad = A(stride);
  MX_TRY(spatial_param(*mx_arg_int_list(args, A(stride)), spatial, stride, 1));
  *bad = A(padding);
  MX_TRY(spatial_param(*mx_arg_int_list(args, A(padding)), spatial, pad, 0));
  *bad = A(dilation);
  MX_TRY(spatial_param(*mx_arg_int_list(args, A(dilation)), spatial, dil, 1));
  for (int i = 0; i < 2; ++i) {
    /* the bound keeps every index below within int32 */
    *bad = A(stride);
    if (stride[i] < 1 || stride[i] > MX_PARAM_MAX) {
      return MX_ERR_BAD_ARG_VALUE;
    }
    *bad = A(padding);
    if (pad[i] < 0 || pad[i] > MX_PARAM_MAX) {
      return MX_ERR_BAD_ARG_VALUE;
    }
    *bad = A(dilation);
    if (dil[i] < 1 || dil[i] > MX_PARAM_MAX) {
      return MX_ERR_BAD_ARG_VALUE;
    }
  }
  int64_t in_h = spatial == 2 ? in->sizes[2] : 1, in_w = in->sizes[in->dim - 1];
  int64_t k_h = spatial == 2 ? w->sizes[2] : 1, k_w = w->sizes[w->dim - 1];
  int64_t span_h = dil[0] * (k_h - 1) + 1, span_w = dil[1] * (k_w - 1) + 1;
  *bad = A(weight);
  if (k_h < 1 || k_w < 1 || in_h + 2 * pad[0] < span_h || in_w + 2 * pad[1] < span_w) {
    return MX_ERR_BAD_SHAPE;
  }
  /* Sizes fit int32 (checked against numel); 32-bit loop arithmetic is what a Cortex-M wants. */
  *s = (mx_conv2d_f32_shape){
      .c_in = in->sizes[1], .in_h = (int32_t)in_h, .in_w = (int32_t)in_w,
      .c_out = w->sizes[0], .out_h = (int32_t)((in_h + 2 * pad[0] - span_h) / stride[0] + 1),
      .out_w = (int32_t)((in_w + 2 * pad[1] - span_w) / stride[1] + 1),
      .k_h = (int32_t)k_h, .k_w = (int32_t)k_w, .groups = (int32_t)mx_arg_int(args, A(groups)),
      .stride = {(int32_t)stride[0], (int32_t)stride[1]}, .pad = {(int32_t)pad[0], (int32_t)pad[1]},
      .dil = {(int32_t)dil[0], (int32_t)dil[1]},
  };
  return MX_OK;
}

mx_arg_error mx_k_aten_convolution_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *w = mx_arg_tensor(args, A(weight));
  const mx_tensor *bias = mx_arg_opt_tensor(args, A(bias)), *out = mx_arg_tensor(args, A(out));
  MX_TRY(mx_check_arg_tensor(args, A(input), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(weight), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_F32));
  if (bias != NULL) {
    MX_TRY(mx_check_arg_tensor(args, A(bias), MX_DTYPE_F32));
  }
  MX_REFUSE_IF(mx_arg_bool(args, A(transposed)), A(transposed), MX_ERR_UNSUPPORTED);
  MX_REFUSE_IF(in->dim == 5, A(input), MX_ERR_UNSUPPORTED); /* 3-D convolution */
  MX_REFUSE_IF(in->dim != 3 && in->dim != 4, A(input), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(w->dim != in->dim, A(weight), MX_ERR_BAD_SHAPE);
  mx_conv2d_f32_shape s;
  uint32_t bad = 0;
  MX_CHECK(bad, conv_shape(args, &s, &bad));
  const int64_t groups = mx_arg_int(args, A(groups));
  MX_REFUSE_IF(groups < 1 || s.c_in % groups != 0 || s.c_out % groups != 0 || w->sizes[1] != s.c_in / groups,
               A(groups), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(bias != NULL && (bias->dim != 1 || bias->sizes[0] != s.c_out), A(bias), MX_ERR_BAD_SHAPE);
  int32_t sizes[4] = {in->sizes[0], s.c_out, s.out_h, s.out_w};
  if (in->dim == 3) {
    sizes[2] = s.out_w;
  }
  MX_CHECK(A(out), mx_check_sizes(out, sizes, in->dim));
  return MX_OK;
}

mx_error mx_k_aten_convolution_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *w = mx_arg_tensor(args, A(weight));
  const mx_tensor *bias = mx_arg_opt_tensor(args, A(bias)), *out = mx_arg_tensor(args, A(out));
  mx_conv2d_f32_shape shape;
  uint32_t bad;
  (void)conv_shape(args, &shape, &bad);
  const int32_t n_batch = in->sizes[0];
  const size_t in_image = (size_t)shape.c_in * (size_t)(shape.in_h * shape.in_w);
  const size_t out_image = (size_t)shape.c_out * (size_t)(shape.out_h * shape.out_w);
  const float *b = bias != NULL ? (const float *)bias->data : NULL;
  for (int32_t n = 0; n < n_batch; ++n) {
    mx_conv2d_f32(&shape, (const float *)in->data + (size_t)n * in_image, (const float *)w->data, b,
                  (float *)out->data + (size_t)n * out_image);
  }
  return MX_OK;
}
