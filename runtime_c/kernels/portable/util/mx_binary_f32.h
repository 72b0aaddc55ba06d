#ifndef MX_PORTABLE_BINARY_F32_H
#define MX_PORTABLE_BINARY_F32_H
/* The one body behind add/sub/mul/div/minimum/maximum.out: argument checks, broadcasting and the element loop. */
#include "mx/kernel.h"

typedef enum mx_binop { MX_BINOP_ADD, MX_BINOP_SUB, MX_BINOP_MUL, MX_BINOP_DIV, MX_BINOP_MIN, MX_BINOP_MAX } mx_binop;

/* add/sub: (self, other, alpha, out, ret); mul/div/minimum/maximum: (self, other, out, ret).
 * An operand may also be a one-element tensor of any numeric dtype (how a Python scalar reaches an
 * exported graph), read as a float. */
mx_arg_error mx_binary_f32_check(mx_value *const *args, mx_binop op);
void mx_binary_f32(mx_value *const *args, mx_binop op);

#endif
