#ifndef MX_CM_BINARY_H
#define MX_CM_BINARY_H
/* How the operands of an int8 add/mul cover the output under torch's broadcasting (trailing dims aligned,
 * size-1 dims repeated), in any dim orders. CMSIS-NN's elementwise kernels take two vectors of one length
 * and do not broadcast, so the output is walked in memory order as runs: the longest innermost stretch of
 * the output's memory where both operands advance with it. Operands laid out like the output make one run;
 * a channel row against a channels-last output ([1, C, 1, 1] against [N, C, H, W]) makes runs of C; an
 * operand broadcast along the innermost memory dim makes runs of one element. */
#include "mx/kernel.h"

typedef struct mx_cm_binary {
  uint32_t rows;    /* calls to make */
  uint32_t row_len; /* elements per call */
  uint32_t outer;   /* memory dims outside the run, outermost first */
  uint32_t sizes[MX_MAX_DIM];
  uint32_t a_stride[MX_MAX_DIM]; /* elements a advances per step of that dim (0: broadcast) */
  uint32_t b_stride[MX_MAX_DIM];
} mx_cm_binary;

/* Load time: args[operands[0]], args[operands[1]] (the operands) and args[operands[2]] (out) are int8
 * tensors, planned without error, and the operands broadcast to out. */
mx_arg_error mx_cm_binary_check(mx_value *const *args, const uint8_t operands[3]);

/* The plan; MX_ERR_BAD_SHAPE when an operand does not broadcast to out. */
mx_error mx_cm_binary_plan(const mx_tensor *a, const mx_tensor *b, const mx_tensor *out, mx_cm_binary *plan);

/* Element offsets of a and b where run `row` starts (the output's is row * row_len). */
void mx_cm_binary_row(const mx_cm_binary *plan, uint32_t row, uint32_t *a_offset, uint32_t *b_offset);

#endif
