/* cortex_m::quantized_batch_matmul.out via arm_batch_matmul_s8: lhs [B, M, K] times rhs_transposed [B, N, K]
 * (the right-hand matrix already transposed, so both read rows of K) into out [B, M, N], per-tensor
 * requantization, clamped to int8. As in ExecuTorch's kernel, lhs_zero_point and rhs_zero_point carry
 * CMSIS-NN offsets (minus the zero points) and output_zero_point the output offset. The scratch holds
 * the MVE path's kernel sums (arm_fully_connected_s8_get_buffer_size of the output dims). Beyond ExecuTorch's
 * kernel, all three tensors may also be 2-D (one batch: a matmul of two activations). */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"
#include "util/mx_cm_ranges.h"

#define A(name) MX_ARG_cortex_m_quantized_batch_matmul_##name

static cmsis_nn_dims dims_of(const mx_tensor *t) {
  return t->dim == 3 ? (cmsis_nn_dims){1, t->sizes[0], t->sizes[1], t->sizes[2]}
                     : (cmsis_nn_dims){1, 1, t->sizes[0], t->sizes[1]};
}

mx_arg_error mx_k_cortex_m_quantized_batch_matmul_out_check(mx_value *const *args) {
  static const uint8_t tensors[3] = {A(lhs), A(rhs_transposed), A(out)};
  MX_TRY(mx_check_arg_tensors(args, tensors, 3, MX_DTYPE_I8));
  const mx_tensor *lhs = mx_arg_tensor(args, A(lhs)), *rhs = mx_arg_tensor(args, A(rhs_transposed));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  MX_REFUSE_IF(lhs->dim != 3 && lhs->dim != 2, A(lhs), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(rhs->dim != lhs->dim, A(rhs_transposed), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(out->dim != lhs->dim, A(out), MX_ERR_BAD_SHAPE);
  const cmsis_nn_dims lhs_dims = dims_of(lhs), rhs_dims = dims_of(rhs), out_dims = dims_of(out);
  MX_REFUSE_IF(rhs_dims.h != lhs_dims.h || rhs_dims.c != lhs_dims.c, A(rhs_transposed), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(out_dims.h != lhs_dims.h || out_dims.w != lhs_dims.w || out_dims.c != rhs_dims.w, A(out),
               MX_ERR_BAD_SHAPE);
  /* no bias: K products of two offset int8 values (a K too long for int32 is the lhs's fault) */
  const int64_t terms = lhs_dims.c * mx_cm_offset_max(mx_arg_int(args, A(lhs_zero_point))) *
                        mx_cm_offset_max(mx_arg_int(args, A(rhs_zero_point)));
  static const uint8_t named[3] = {A(lhs), A(output_multiplier), A(output_shift)};
  MX_TRY(mx_cm_acc_check(0, terms, mx_cm_int(args, A(output_multiplier)), mx_cm_int(args, A(output_shift)), named));
  MX_CHECK(A(scratch),
           mx_cm_scratch_check(mx_arg_tensor(args, A(scratch)), arm_fully_connected_s8_get_buffer_size(&out_dims)));
  return MX_OK;
}

mx_error mx_k_cortex_m_quantized_batch_matmul_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *lhs = mx_arg_tensor(args, A(lhs)), *rhs = mx_arg_tensor(args, A(rhs_transposed));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  if (out->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_dims lhs_dims = dims_of(lhs), rhs_dims = dims_of(rhs), out_dims = dims_of(out);
  const cmsis_nn_bmm_params bmm = {false,
                                   false,
                                   {mx_cm_int(args, A(lhs_zero_point)),
                                    mx_cm_int(args, A(rhs_zero_point)),
                                    mx_cm_int(args, A(output_zero_point)),
                                    {INT8_MIN, INT8_MAX}}};
  const cmsis_nn_per_tensor_quant_params q = {mx_cm_int(args, A(output_multiplier)), mx_cm_int(args, A(output_shift))};
  const cmsis_nn_context cm = mx_cm_scratch(mx_arg_tensor(args, A(scratch)));
  return mx_cm_status(arm_batch_matmul_s8(&cm, &bmm, &q, &lhs_dims, (const int8_t *)lhs->data, &rhs_dims,
                                          (const int8_t *)rhs->data, &out_dims, (int8_t *)out->data));
}
