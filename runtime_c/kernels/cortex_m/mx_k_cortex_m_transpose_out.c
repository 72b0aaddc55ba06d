/* cortex_m::transpose.out via arm_transpose_s8: out = input.permute(perm), contiguous, int8, rank 1 to 4.
 * Dims go in the leading fields of cmsis_nn_dims (n, h, w, c), the rest 1. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"

#define A(name) MX_ARG_cortex_m_transpose_##name

mx_arg_error mx_k_cortex_m_transpose_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  const mx_int_list *perm = mx_arg_int_list(args, A(perm));
  MX_TRY(mx_check_arg_tensor(args, A(input), MX_DTYPE_I8));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_I8));
  MX_REFUSE_IF(in->dim < 1 || in->dim > 4, A(input), MX_ERR_UNSUPPORTED);
  MX_REFUSE_IF(perm->len != in->dim, A(perm), MX_ERR_BAD_ARG_VALUE);
  int32_t out_d[4];
  bool seen[4] = {false, false, false, false};
  for (uint32_t i = 0; i < perm->len; ++i) {
    uint32_t p = 0;
    MX_CHECK(A(perm), mx_wrap_dim(perm->items[i], in->dim, &p));
    MX_REFUSE_IF(seen[p], A(perm), MX_ERR_BAD_ARG_VALUE); /* not a permutation */
    seen[p] = true;
    out_d[i] = in->sizes[p];
  }
  MX_CHECK(A(out), mx_check_sizes(out, out_d, in->dim));
  return MX_OK;
}

mx_error mx_k_cortex_m_transpose_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  const mx_int_list *perm = mx_arg_int_list(args, A(perm));
  if (in->numel == 0) {
    return MX_OK;
  }
  int32_t in_d[4] = {1, 1, 1, 1}, out_d[4] = {1, 1, 1, 1};
  uint32_t p[4] = {0, 1, 2, 3};
  for (uint32_t i = 0; i < perm->len; ++i) {
    p[i] = mx_wrapped_dim(perm->items[i], in->dim);
    in_d[i] = in->sizes[i];
    out_d[i] = out->sizes[i];
  }
  const cmsis_nn_dims in_dims = {in_d[0], in_d[1], in_d[2], in_d[3]};
  const cmsis_nn_dims out_dims = {out_d[0], out_d[1], out_d[2], out_d[3]};
  const cmsis_nn_transpose_params tp = {(int32_t)in->dim, p};
  return mx_cm_status(arm_transpose_s8((const int8_t *)in->data, (int8_t *)out->data, &in_dims, &out_dims, &tp));
}
