/* aten::convolution.out for float32: 2-D NCHW (and 1-D NCL, run as H = 1) direct convolution with
 * stride, padding, dilation and groups (depthwise included). Transposed convolution is not supported. */
#include "util/mx_args.h"
#include "util/mx_conv2d_f32.h"
#include "util/mx_tensor_util.h"

#define MX_PARAM_MAX (1 << 20)

/* A per-dim list of the spatial rank: one value repeats, else one per spatial dim. Fills (h, w). */
static mx_error spatial_param(const mx_value *v, uint32_t spatial, int64_t out[2], int64_t h_default) {
  const int64_t *items = NULL;
  uint32_t len = 0;
  MX_TRY(mx_arg_int_list(v, &items, &len));
  if (len == 1) {
    out[0] = spatial == 2 ? items[0] : h_default;
    out[1] = items[0];
  } else if (len == spatial) {
    out[0] = spatial == 2 ? items[0] : h_default;
    out[1] = items[len - 1];
  } else {
    return MX_ERR_BAD_ARG_VALUE;
  }
  return MX_OK;
}

mx_error mx_k_aten_convolution_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 11) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *w = NULL, *bias = NULL, *out = NULL;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_tensor(args[1], &w));
  MX_TRY(mx_arg_opt_tensor(args[2], &bias));
  const int64_t *unused = NULL;
  uint32_t unused_len = 0;
  MX_TRY(mx_arg_int_list(args[3], &unused, &unused_len));
  MX_TRY(mx_arg_int_list(args[4], &unused, &unused_len));
  MX_TRY(mx_arg_int_list(args[5], &unused, &unused_len));
  bool transposed = false;
  MX_TRY(mx_arg_bool(args[6], &transposed));
  MX_TRY(mx_arg_int_list(args[7], &unused, &unused_len)); /* output_padding: transposed only */
  int64_t groups = 0;
  MX_TRY(mx_arg_int(args[8], &groups));
  MX_TRY(mx_arg_tensor(args[9], &out));
  MX_TRY(mx_arg_ret_is(args[10], out));

  MX_TRY(mx_check_tensor(in, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(w, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(out, MX_DTYPE_F32));
  if (bias != NULL) {
    MX_TRY(mx_check_tensor(bias, MX_DTYPE_F32));
  }
  if (transposed) {
    return MX_ERR_UNSUPPORTED;
  }
  if (in->dim == 5) {
    return MX_ERR_UNSUPPORTED; /* 3-D convolution */
  }
  if ((in->dim != 3 && in->dim != 4) || w->dim != in->dim) {
    return MX_ERR_BAD_SHAPE;
  }
  uint32_t spatial = in->dim - 2u;
  int64_t stride[2], pad[2], dil[2];
  MX_TRY(spatial_param(args[3], spatial, stride, 1));
  MX_TRY(spatial_param(args[4], spatial, pad, 0));
  MX_TRY(spatial_param(args[5], spatial, dil, 1));
  for (int i = 0; i < 2; ++i) {
    /* the bound keeps every index below within int32 */
    if (stride[i] < 1 || pad[i] < 0 || dil[i] < 1 || stride[i] > MX_PARAM_MAX || pad[i] > MX_PARAM_MAX ||
        dil[i] > MX_PARAM_MAX) {
      return MX_ERR_BAD_ARG_VALUE;
    }
  }

  int64_t n_batch = in->sizes[0], c_in = in->sizes[1];
  int64_t in_h = spatial == 2 ? in->sizes[2] : 1, in_w = in->sizes[in->dim - 1];
  int64_t c_out = w->sizes[0], c_per_g = w->sizes[1];
  int64_t k_h = spatial == 2 ? w->sizes[2] : 1, k_w = w->sizes[w->dim - 1];
  if (groups < 1 || c_in % groups != 0 || c_out % groups != 0 || c_per_g != c_in / groups) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  if (bias != NULL && (bias->dim != 1 || bias->sizes[0] != c_out)) {
    return MX_ERR_BAD_SHAPE;
  }
  int64_t span_h = dil[0] * (k_h - 1) + 1, span_w = dil[1] * (k_w - 1) + 1;
  if (k_h < 1 || k_w < 1 || in_h + 2 * pad[0] < span_h || in_w + 2 * pad[1] < span_w) {
    return MX_ERR_BAD_SHAPE;
  }
  int64_t out_h = (in_h + 2 * pad[0] - span_h) / stride[0] + 1;
  int64_t out_w = (in_w + 2 * pad[1] - span_w) / stride[1] + 1;
  int32_t sizes[4] = {(int32_t)n_batch, (int32_t)c_out, (int32_t)out_h, (int32_t)out_w};
  if (spatial == 1) {
    sizes[2] = (int32_t)out_w;
  }
  MX_TRY(mx_check_sizes(out, sizes, in->dim));

  /* Sizes fit int32 (checked against numel above); 32-bit loop arithmetic is what a Cortex-M wants. */
  mx_conv2d_f32_shape shape = {
      .c_in = (int32_t)c_in, .in_h = (int32_t)in_h, .in_w = (int32_t)in_w,
      .c_out = (int32_t)c_out, .out_h = (int32_t)out_h, .out_w = (int32_t)out_w,
      .k_h = (int32_t)k_h, .k_w = (int32_t)k_w, .groups = (int32_t)groups,
      .stride = {(int32_t)stride[0], (int32_t)stride[1]}, .pad = {(int32_t)pad[0], (int32_t)pad[1]},
      .dil = {(int32_t)dil[0], (int32_t)dil[1]},
  };
  const size_t in_image = (size_t)c_in * (size_t)(in_h * in_w), out_image = (size_t)c_out * (size_t)(out_h * out_w);
  const float *b = bias != NULL ? (const float *)bias->data : NULL;
  for (int64_t n = 0; n < n_batch; ++n) {
    mx_conv2d_f32(&shape, (const float *)in->data + (size_t)n * in_image, (const float *)w->data, b,
                  (float *)out->data + (size_t)n * out_image);
  }
  return MX_OK;
}
