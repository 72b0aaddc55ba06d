#ifndef MX_PORTABLE_UNARY_F32_H
#define MX_PORTABLE_UNARY_F32_H
/* What the element-wise float32 kernels (relu, sigmoid, clamp, ...) share: the check of self and out, and
 * reading them once checked. */
#include "mx_args.h"

/* The tensors of an element-wise float32 op: in and out hold numel elements each, in one memory order. */
typedef struct {
  const float *in;
  float *out;
  uint32_t numel;
} mx_unary_f32;

/* args[self_i] and args[out_i] are float32 tensors of one shape, both contiguous or both in one dim order. */
mx_arg_error mx_unary_f32_check(mx_value *const *args, uint32_t self_i, uint32_t out_i);

static inline mx_unary_f32 mx_unary_f32_at(mx_value *const *args, uint32_t self_i, uint32_t out_i) {
  const mx_tensor *o = mx_arg_tensor(args, out_i);
  return (mx_unary_f32){(const float *)mx_arg_tensor(args, self_i)->data, (float *)o->data, o->numel};
}

/* relu6(x + 3): the ramp shared by hardsigmoid and hardswish. */
static inline float mx_relu6_plus3_f32(float x) {
  float r = x + 3.0f;
  return r < 0.0f ? 0.0f : (r > 6.0f ? 6.0f : r);
}

#endif
