/* aten::native_layer_norm.out for float32: (input, normalized_shape, weight, bias, eps, out0, out1, out2, ret).
 * Each row of the trailing normalized_shape elements is normalised with its own mean and biased variance;
 * out1 (mean) and out2 (rstd = 1 / sqrt(var + eps)) have the input's leading sizes then ones, as torch gives
 * them. The variance is the mean of squared deviations from the mean (two passes), not E[x^2] - E[x]^2, which
 * cancels catastrophically when the mean is large next to the spread; float throughout (an M4 has no double FPU). */
#include <math.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_native_layer_norm_##name

mx_arg_error mx_k_aten_native_layer_norm_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input));
  const mx_int_list *shape = mx_arg_int_list(args, A(normalized_shape));
  const uint8_t tensors[4] = {A(input), A(out0), A(out1), A(out2)};
  MX_TRY(mx_check_arg_tensors(args, tensors, 4, MX_DTYPE_F32));
  MX_REFUSE_IF(shape->len < 1 || shape->len > in->dim, A(normalized_shape), MX_ERR_BAD_ARG_VALUE);
  const uint32_t axis = in->dim - shape->len;
  for (uint32_t i = 0; i < shape->len; ++i) {
    MX_REFUSE_IF(shape->items[i] != in->sizes[axis + i], A(normalized_shape), MX_ERR_BAD_SHAPE);
  }
  const uint32_t row = mx_size_prod(in->sizes, axis, in->dim);
  for (uint32_t j = A(weight); j <= A(bias); ++j) {
    const mx_tensor *t = mx_arg_opt_tensor(args, j);
    if (t != NULL) {
      MX_TRY(mx_check_arg_tensor(args, j, MX_DTYPE_F32));
      MX_REFUSE_IF(t->numel != row, j, MX_ERR_BAD_SHAPE);
    }
  }
  MX_REFUSE_IF(mx_arg_double(args, A(eps)) < 0.0, A(eps), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(!mx_same_shape(in, mx_arg_tensor(args, A(out0))), A(out0), MX_ERR_BAD_SHAPE);
  int32_t stat_sizes[MX_MAX_DIM];
  for (uint32_t i = 0; i < in->dim; ++i) {
    stat_sizes[i] = i < axis ? in->sizes[i] : 1;
  }
  MX_CHECK(A(out1), mx_check_sizes(mx_arg_tensor(args, A(out1)), stat_sizes, in->dim));
  MX_CHECK(A(out2), mx_check_sizes(mx_arg_tensor(args, A(out2)), stat_sizes, in->dim));
  return MX_OK;
}

mx_error mx_k_aten_native_layer_norm_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input));
  const mx_tensor *weight = mx_arg_opt_tensor(args, A(weight)), *bias = mx_arg_opt_tensor(args, A(bias));
  const uint32_t axis = in->dim - mx_arg_int_list(args, A(normalized_shape))->len;
  const uint32_t row = mx_size_prod(in->sizes, axis, in->dim), rows = mx_size_prod(in->sizes, 0, axis);
  const float eps = (float)mx_arg_double(args, A(eps));
  const float *w = weight != NULL ? (const float *)weight->data : NULL;
  const float *b = bias != NULL ? (const float *)bias->data : NULL;
  float *mean_out = (float *)mx_arg_tensor(args, A(out1))->data;
  float *rstd_out = (float *)mx_arg_tensor(args, A(out2))->data;
  for (uint32_t r = 0; r < rows; ++r) {
    const float *x = (const float *)in->data + (size_t)r * row;
    float *y = (float *)mx_arg_tensor(args, A(out0))->data + (size_t)r * row;
    float sum = 0.0f;
    for (uint32_t i = 0; i < row; ++i) {
      sum += x[i];
    }
    const float mean = row != 0 ? sum / (float)row : 0.0f;
    float squares = 0.0f;
    for (uint32_t i = 0; i < row; ++i) {
      const float d = x[i] - mean;
      squares += d * d;
    }
    const float var = row != 0 ? squares / (float)row : 0.0f;
    const float rstd = 1.0f / sqrtf(var + eps);
    for (uint32_t i = 0; i < row; ++i) {
      float v = (x[i] - mean) * rstd;
      v = w != NULL ? v * w[i] : v;
      y[i] = b != NULL ? v + b[i] : v;
    }
    mean_out[r] = mean;
    rstd_out[r] = rstd;
  }
  return MX_OK;
}
