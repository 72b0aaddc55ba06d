#ifndef MX_CM_BINARY_H
#define MX_CM_BINARY_H
/* How the operands of an int8 add/mul cover the output. CMSIS-NN's elementwise kernels take two vectors
 * of one length, so ExecuTorch's two cases become calls of that kind: operands laid out like the output
 * (one call over everything), or one operand a single channel row (numel == the output's innermost
 * memory dim, e.g. [1, C, 1, 1] against a channels-last [N, C, H, W]) reused for every pixel. */
#include "mx/kernel.h"

typedef struct mx_cm_binary {
  uint32_t rows;      /* calls to make */
  uint32_t row_len;   /* elements per call */
  uint32_t a_step;    /* elements to advance a per call: row_len, or 0 when a is the broadcast row */
  uint32_t b_step;
} mx_cm_binary;

/* Load time: args[operands[0]], args[operands[1]] (the operands) and args[operands[2]] (out) are int8
 * tensors, planned without error. */
mx_arg_error mx_cm_binary_check(mx_value *const *args, const uint8_t operands[3]);

/* The plan; MX_ERR_BAD_SHAPE when neither case holds. */
mx_error mx_cm_binary_plan(const mx_tensor *a, const mx_tensor *b, const mx_tensor *out, mx_cm_binary *plan);

#endif
