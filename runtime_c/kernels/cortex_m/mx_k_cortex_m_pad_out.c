/* cortex_m::pad.out via arm_pad_s8: constant padding of an int8 tensor of rank 1 to 4; pre_pad and post_pad
 * are int[4]. The pads are in memory order (N, H, W, C for a channels-last tensor; the sizes in dim order,
 * padded in front with 1 to four dims), as ExecuTorch's lowering writes them; out has input's dim order and
 * physical size pre + in + post per dim. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"

#define MX_CM_PAD_MAX (1 << 24)
#define A(name) MX_ARG_cortex_m_pad_##name

mx_arg_error mx_k_cortex_m_pad_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  const mx_int_list *pre = mx_arg_int_list(args, A(pre_pad)), *post = mx_arg_int_list(args, A(post_pad));
  MX_REFUSE_IF(in->dtype != MX_DTYPE_I8, A(input), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(out->dtype != MX_DTYPE_I8, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(in->dim > 4, A(input), MX_ERR_UNSUPPORTED);
  MX_REFUSE_IF(in->dim < 1, A(input), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(out->dim != in->dim, A(out), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(pre->len != 4, A(pre_pad), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(post->len != 4, A(post_pad), MX_ERR_BAD_ARG_VALUE);
  int32_t in_p[4], out_p[4];
  mx_cm_physical4(in, in_p);
  mx_cm_physical4(out, out_p);
  for (uint32_t i = 0; i < 4; ++i) {
    const bool lead = i < 4u - in->dim; /* a dim the tensor does not have takes no padding */
    MX_REFUSE_IF(pre->items[i] < 0 || pre->items[i] > MX_CM_PAD_MAX || (lead && pre->items[i] != 0), A(pre_pad),
                 MX_ERR_BAD_ARG_VALUE);
    MX_REFUSE_IF(post->items[i] < 0 || post->items[i] > MX_CM_PAD_MAX || (lead && post->items[i] != 0), A(post_pad),
                 MX_ERR_BAD_ARG_VALUE);
    MX_REFUSE_IF((int64_t)out_p[i] != (int64_t)in_p[i] + pre->items[i] + post->items[i], A(out), MX_ERR_BAD_SHAPE);
  }
  for (uint32_t i = 0; i < in->dim; ++i) {
    MX_REFUSE_IF(in->dim_order[i] != out->dim_order[i], A(out), MX_ERR_BAD_ARG_VALUE);
  }
  return MX_OK;
}

mx_error mx_k_cortex_m_pad_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  if (out->numel == 0) {
    return MX_OK;
  }
  const int64_t *pre = mx_arg_int_list(args, A(pre_pad))->items, *post = mx_arg_int_list(args, A(post_pad))->items;
  int32_t in_p[4];
  mx_cm_physical4(in, in_p);
  const cmsis_nn_dims in_dims = {in_p[0], in_p[1], in_p[2], in_p[3]};
  const cmsis_nn_dims pre_dims = {(int32_t)pre[0], (int32_t)pre[1], (int32_t)pre[2], (int32_t)pre[3]};
  const cmsis_nn_dims post_dims = {(int32_t)post[0], (int32_t)post[1], (int32_t)post[2], (int32_t)post[3]};
  return mx_cm_status(arm_pad_s8((const int8_t *)in->data, (int8_t *)out->data, (int8_t)mx_cm_int(args, A(pad_value)),
                                 &in_dims, &pre_dims, &post_dims));
}
