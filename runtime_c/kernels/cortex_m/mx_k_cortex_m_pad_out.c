/* cortex_m::pad.out via arm_pad_s8: constant padding of an int8 tensor of rank 1 to 4. Args: (input,
 * pre_pad int[4], post_pad int[4], pad_value, out, ret). The pads are in memory order (N, H, W, C for a
 * channels-last tensor; the sizes in dim order, padded in front with 1 to four dims), as ExecuTorch's
 * lowering writes them; out has input's dim order and physical size pre + in + post per dim. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"

#define MX_CM_PAD_MAX (1 << 24)

mx_error mx_k_cortex_m_pad_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 6) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *out = NULL;
  const int64_t *pre = NULL, *post = NULL;
  uint32_t n_pre = 0, n_post = 0;
  int32_t value = 0;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_int_list(args[1], &pre, &n_pre));
  MX_TRY(mx_arg_int_list(args[2], &post, &n_post));
  MX_TRY(mx_cm_int_in(args[3], -128, 127, &value));
  MX_TRY(mx_arg_tensor(args[4], &out));
  MX_TRY(mx_arg_ret_is(args[5], out));
  if (in->dtype != MX_DTYPE_I8 || out->dtype != MX_DTYPE_I8) {
    return MX_ERR_BAD_DTYPE;
  }
  if (in->dim < 1 || in->dim > 4 || out->dim != in->dim) {
    return in->dim > 4 ? MX_ERR_UNSUPPORTED : MX_ERR_BAD_SHAPE;
  }
  if (n_pre != 4 || n_post != 4) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  int32_t in_p[4], out_p[4], pre_p[4], post_p[4];
  MX_TRY(mx_cm_physical4(in, in_p));
  MX_TRY(mx_cm_physical4(out, out_p));
  for (uint32_t i = 0; i < 4; ++i) {
    if (pre[i] < 0 || post[i] < 0 || pre[i] > MX_CM_PAD_MAX || post[i] > MX_CM_PAD_MAX ||
        (i < 4u - in->dim && (pre[i] != 0 || post[i] != 0))) {
      return MX_ERR_BAD_ARG_VALUE;
    }
    pre_p[i] = (int32_t)pre[i];
    post_p[i] = (int32_t)post[i];
    if ((int64_t)out_p[i] != (int64_t)in_p[i] + pre[i] + post[i]) {
      return MX_ERR_BAD_SHAPE;
    }
  }
  for (uint32_t i = 0; i < in->dim; ++i) {
    if (in->dim_order[i] != out->dim_order[i]) {
      return MX_ERR_BAD_ARG_VALUE;
    }
  }
  if (out->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_dims in_dims = {in_p[0], in_p[1], in_p[2], in_p[3]};
  const cmsis_nn_dims pre_dims = {pre_p[0], pre_p[1], pre_p[2], pre_p[3]};
  const cmsis_nn_dims post_dims = {post_p[0], post_p[1], post_p[2], post_p[3]};
  return mx_cm_status(arm_pad_s8((const int8_t *)in->data, (int8_t *)out->data, (int8_t)value, &in_dims, &pre_dims,
                                 &post_dims));
}
