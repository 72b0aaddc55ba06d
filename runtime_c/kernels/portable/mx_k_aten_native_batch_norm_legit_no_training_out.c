/* aten::_native_batch_norm_legit_no_training.out for float32 (inference batch norm):
 * (input [N, C, ...], weight?, bias?, running_mean [C], running_var [C], momentum, eps,
 *  out0, out1, out2, ret=[out0, out1, out2]). Only out0 is written: inference has no saved
 * mean/invstd, and the emitter gives out1/out2 empty tensors. */
#include <math.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_native_batch_norm_legit_no_training_##name

static mx_error check_channel_vec(const mx_tensor *t, int32_t c) {
  MX_TRY(mx_check_tensor(t, MX_DTYPE_F32));
  return (t->dim == 1 && t->sizes[0] == c) ? MX_OK : MX_ERR_BAD_SHAPE;
}

mx_arg_error mx_k_aten_native_batch_norm_legit_no_training_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out0));
  const mx_tensor *w = mx_arg_opt_tensor(args, A(weight)), *b = mx_arg_opt_tensor(args, A(bias));
  MX_TRY(mx_check_arg_tensor(args, A(input), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(out0), MX_DTYPE_F32));
  MX_REFUSE_IF(in->dim < 2, A(input), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(!mx_same_shape(in, out), A(out0), MX_ERR_BAD_SHAPE);
  int32_t c = in->sizes[1];
  MX_CHECK(A(running_mean), check_channel_vec(mx_arg_tensor(args, A(running_mean)), c));
  MX_CHECK(A(running_var), check_channel_vec(mx_arg_tensor(args, A(running_var)), c));
  if (w != NULL) {
    MX_CHECK(A(weight), check_channel_vec(w, c));
  }
  if (b != NULL) {
    MX_CHECK(A(bias), check_channel_vec(b, c));
  }
  return MX_OK;
}

mx_error mx_k_aten_native_batch_norm_legit_no_training_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out0));
  const mx_tensor *w = mx_arg_opt_tensor(args, A(weight)), *b = mx_arg_opt_tensor(args, A(bias));
  const mx_tensor *mean = mx_arg_tensor(args, A(running_mean)), *var = mx_arg_tensor(args, A(running_var));
  const double eps = mx_arg_double(args, A(eps));
  const int32_t c = in->sizes[1];
  uint32_t batch = (uint32_t)in->sizes[0];
  uint32_t plane = mx_size_prod(in->sizes, 2, in->dim);
  const float *x = (const float *)in->data, *pm = (const float *)mean->data, *pv = (const float *)var->data;
  const float *pw = w != NULL ? (const float *)w->data : NULL, *pb = b != NULL ? (const float *)b->data : NULL;
  float *y = (float *)out->data;
  float feps = (float)eps;
  for (int32_t ch = 0; ch < c; ++ch) {
    /* y = x * scale + shift, with scale = w / sqrt(var + eps) and shift = b - mean * scale, as torch does */
    float scale = 1.0f / sqrtf(pv[ch] + feps);
    if (pw != NULL) {
      scale *= pw[ch];
    }
    float shift = (pb != NULL ? pb[ch] : 0.0f) - pm[ch] * scale;
    for (uint32_t n = 0; n < batch; ++n) {
      size_t base = ((size_t)n * (size_t)c + (size_t)ch) * plane;
      for (uint32_t i = 0; i < plane; ++i) {
        y[base + i] = x[base + i] * scale + shift;
      }
    }
  }
  return MX_OK;
}
