/* cortex_m::minimum.out: arm_minimum_s8 over the runs of the broadcast (util/mx_cm_min_max.h). */
#include "util/mx_cm_args.h"
#include "util/mx_cm_binary.h"
#include "util/mx_cm_min_max.h"

#define A(name) MX_ARG_cortex_m_minimum_##name

mx_arg_error mx_k_cortex_m_minimum_out_check(mx_value *const *args) {
  static const uint8_t operands[3] = {A(self), A(other), A(out)};
  return mx_cm_binary_check(args, operands);
}

mx_error mx_k_cortex_m_minimum_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  return mx_cm_min_max(mx_arg_tensor(args, A(self)), mx_arg_tensor(args, A(other)), mx_arg_tensor(args, A(out)), false);
}
