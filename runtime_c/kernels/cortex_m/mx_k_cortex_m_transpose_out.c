/* cortex_m::transpose.out via arm_transpose_s8: out = input.permute(perm), contiguous, int8, rank 1 to 4.
 * Args: (input, perm, out, ret). Dims go in the leading fields of cmsis_nn_dims (n, h, w, c), the rest 1. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"

mx_error mx_k_cortex_m_transpose_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 4) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *out = NULL;
  const int64_t *perm = NULL;
  uint32_t len = 0;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_int_list(args[1], &perm, &len));
  MX_TRY(mx_arg_tensor(args[2], &out));
  MX_TRY(mx_arg_ret_is(args[3], out));
  MX_TRY(mx_check_tensor(in, MX_DTYPE_I8));
  MX_TRY(mx_check_tensor(out, MX_DTYPE_I8));
  if (in->dim < 1 || in->dim > 4) {
    return MX_ERR_UNSUPPORTED;
  }
  if (len != in->dim) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  int32_t in_d[4] = {1, 1, 1, 1}, out_d[4] = {1, 1, 1, 1};
  uint32_t p[4] = {0, 1, 2, 3};
  bool seen[4] = {false, false, false, false};
  for (uint32_t i = 0; i < len; ++i) {
    MX_TRY(mx_wrap_dim(perm[i], in->dim, &p[i]));
    if (seen[p[i]]) {
      return MX_ERR_BAD_ARG_VALUE; /* not a permutation */
    }
    seen[p[i]] = true;
    in_d[i] = in->sizes[i];
    out_d[i] = in->sizes[p[i]];
  }
  MX_TRY(mx_check_sizes(out, out_d, in->dim));
  if (in->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_dims in_dims = {in_d[0], in_d[1], in_d[2], in_d[3]};
  const cmsis_nn_dims out_dims = {out_d[0], out_d[1], out_d[2], out_d[3]};
  const cmsis_nn_transpose_params tp = {(int32_t)in->dim, p};
  return mx_cm_status(arm_transpose_s8((const int8_t *)in->data, (int8_t *)out->data, &in_dims, &out_dims, &tp));
}
