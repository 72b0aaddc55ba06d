/* aten::_native_batch_norm_legit_no_training.out for float32 (inference batch norm):
 * (input [N, C, ...], weight?, bias?, running_mean [C], running_var [C], momentum, eps,
 *  out0, out1, out2, ret=[out0, out1, out2]). Only out0 is written: inference has no saved
 * mean/invstd, and the emitter gives out1/out2 empty tensors. */
#include <math.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

static mx_error check_channel_vec(const mx_tensor *t, int32_t c) {
  MX_TRY(mx_check_tensor(t, MX_DTYPE_F32));
  return (t->dim == 1 && t->sizes[0] == c) ? MX_OK : MX_ERR_BAD_SHAPE;
}

mx_error mx_k_aten_native_batch_norm_legit_no_training_out(mx_kernel_ctx *ctx, mx_value *const *args,
                                                           uint32_t nargs) {
  (void)ctx;
  if (nargs != 11) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *w = NULL, *b = NULL, *mean = NULL, *var = NULL, *outs[3] = {NULL, NULL, NULL};
  double momentum = 0.0, eps = 0.0;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_opt_tensor(args[1], &w));
  MX_TRY(mx_arg_opt_tensor(args[2], &b));
  MX_TRY(mx_arg_tensor(args[3], &mean));
  MX_TRY(mx_arg_tensor(args[4], &var));
  MX_TRY(mx_arg_double(args[5], &momentum));
  MX_TRY(mx_arg_double(args[6], &eps));
  for (uint32_t i = 0; i < 3; ++i) {
    MX_TRY(mx_arg_tensor(args[7 + i], &outs[i]));
  }
  MX_TRY(mx_arg_ret_list_is(args[10], (const mx_tensor *const *)outs, 3));
  mx_tensor *out = outs[0];
  MX_TRY(mx_check_tensor(in, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(out, MX_DTYPE_F32));
  if (in->dim < 2) {
    return MX_ERR_BAD_SHAPE;
  }
  if (!mx_same_shape(in, out)) {
    return MX_ERR_BAD_SHAPE;
  }
  int32_t c = in->sizes[1];
  MX_TRY(check_channel_vec(mean, c));
  MX_TRY(check_channel_vec(var, c));
  if (w != NULL) {
    MX_TRY(check_channel_vec(w, c));
  }
  if (b != NULL) {
    MX_TRY(check_channel_vec(b, c));
  }
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
