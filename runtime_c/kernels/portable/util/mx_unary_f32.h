#ifndef MX_PORTABLE_UNARY_F32_H
#define MX_PORTABLE_UNARY_F32_H
/* Argument checks shared by the element-wise float32 kernels (relu, sigmoid, clamp, ...). */
#include "mx/kernel.h"

/* The tensors of an element-wise float32 op: in and out hold numel elements each. */
typedef struct {
  const float *in;
  float *out;
  uint32_t numel;
} mx_unary_f32;

/* args is (self, out, ret): nargs must be 3 (else MX_ERR_BAD_ARG_COUNT), then as mx_unary_f32_at. */
mx_error mx_unary_f32_args(mx_value *const *args, uint32_t nargs, mx_unary_f32 *u);

/* args[self_i] and args[out_i] are contiguous float32 tensors of one shape, args[out_i + 1] returns out. */
mx_error mx_unary_f32_at(mx_value *const *args, uint32_t self_i, uint32_t out_i, mx_unary_f32 *u);

/* relu6(x + 3): the ramp shared by hardsigmoid and hardswish. */
static inline float mx_relu6_plus3_f32(float x) {
  float r = x + 3.0f;
  return r < 0.0f ? 0.0f : (r > 6.0f ? 6.0f : r);
}

#endif
