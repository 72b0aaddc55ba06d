/* aten::gelu.out for float32: (self, approximate, out, ret). approximate "none" is x * Phi(x) with erff (newlib's
 * libm has it on every Arm multilib, the host's libm too); "tanh" is torch's tanh approximation. */
#include <math.h>
#include <string.h>

#include "util/mx_unary_f32.h"

#define A(name) MX_ARG_aten_gelu_##name

/* true: the tanh approximation; the check has refused anything but "none" and "tanh". */
static bool is_tanh(mx_value *const *args) {
  const mx_value *a = args[A(approximate)];
  return a->u.str.len == 4 && memcmp(a->u.str.chars, "tanh", 4) == 0;
}

mx_arg_error mx_k_aten_gelu_out_check(mx_value *const *args) {
  const mx_value *a = args[A(approximate)];
  const bool none = a->u.str.len == 4 && memcmp(a->u.str.chars, "none", 4) == 0;
  MX_REFUSE_IF(!none && !is_tanh(args), A(approximate), MX_ERR_BAD_ARG_VALUE);
  return mx_unary_f32_check(args, A(self), A(out));
}

mx_error mx_k_aten_gelu_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_unary_f32 u = mx_unary_f32_at(args, A(self), A(out));
  const float sqrt1_2 = 0.70710678118654752f, sqrt2_pi = 0.79788456080286536f;
  if (is_tanh(args)) {
    for (uint32_t i = 0; i < u.numel; ++i) {
      const float x = u.in[i];
      u.out[i] = 0.5f * x * (1.0f + tanhf(sqrt2_pi * (x + 0.044715f * x * x * x)));
    }
  } else {
    for (uint32_t i = 0; i < u.numel; ++i) {
      const float x = u.in[i];
      u.out[i] = 0.5f * x * (1.0f + erff(x * sqrt1_2));
    }
  }
  return MX_OK;
}
