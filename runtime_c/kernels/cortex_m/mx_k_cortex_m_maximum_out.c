/* cortex_m::maximum.out via arm_maximum_s8 on int8 operands that share the output's quantization (the
 * lowering requantizes them first). Operands broadcast to out (util/mx_cm_binary.h): one call per run. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"
#include "util/mx_cm_binary.h"

#define A(name) MX_ARG_cortex_m_maximum_##name

mx_arg_error mx_k_cortex_m_maximum_out_check(mx_value *const *args) {
  static const uint8_t operands[3] = {A(self), A(other), A(out)};
  return mx_cm_binary_check(args, operands);
}

mx_error mx_k_cortex_m_maximum_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *a = mx_arg_tensor(args, A(self)), *b = mx_arg_tensor(args, A(other));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  mx_cm_binary plan;
  (void)mx_cm_binary_plan(a, b, out, &plan); /* checked at load */
  const cmsis_nn_dims run = {1, 1, 1, (int32_t)plan.row_len};
  const int8_t *pa = (const int8_t *)a->data, *pb = (const int8_t *)b->data;
  int8_t *po = (int8_t *)out->data;
  for (uint32_t r = 0; r < plan.rows; ++r) {
    uint32_t ao, bo;
    mx_cm_binary_row(&plan, r, &ao, &bo);
    MX_TRY(mx_cm_status(arm_maximum_s8(NULL, pa + ao, &run, pb + bo, &run, po + r * plan.row_len, &run)));
  }
  return MX_OK;
}
