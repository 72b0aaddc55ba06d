#ifndef MX_CM_ROWS_H
#define MX_CM_ROWS_H
/* Window ops (convolution, depthwise convolution, pooling) whose out overlaps their input: run a group of output
 * rows at a time, forward when the out starts below the input and backward when above, so that no row is written
 * over input bytes a later group still reads. What each direction needs is a distance between the two tensors' starts
 * (mx_cm_rows_overlap); the loader checks it against the plan (the op's overlap function), the planner computes the
 * same (mcu_export/ops/overlap.py). A group is one call of the CMSIS-NN function on the input rows its windows
 * read, so the rule holds whatever order the function keeps inside a call. Tensors apart: one call, as always. */
#include "mx_cm_args.h"

/* The rows: NHWC input and output, and the window along H (span: dilation * (kernel - 1) + 1). mx_cm_rows_calls
 * sets the calls' layout, which mx_cm_rows_call_at reads (zero until then): output rows per call and calls per
 * batch (0: one call for the whole op, in and out apart). */
typedef struct mx_cm_rows {
  cmsis_nn_dims in, out;
  int32_t stride, pad, span;
  int32_t group, groups;
} mx_cm_rows;

/* One CMSIS-NN call of the op: its input rows (in_dims.h of them, from `in`), its top padding, its output rows. */
typedef struct mx_cm_rows_call {
  cmsis_nn_dims in_dims, out_dims;
  const int8_t *in;
  int8_t *out;
  int32_t pad;
} mx_cm_rows_call;

/* The calls that run the whole op: one when in and out are apart, else one per group of output rows, in the
 * direction that fits (the kernel loops over them and calls its CMSIS-NN function; no function pointers, so the
 * stack analysis and the firmware's CMSIS-NN picker see every call). */
int32_t mx_cm_rows_calls(mx_cm_rows *r, const int8_t *in, const int8_t *out);
void mx_cm_rows_call_at(const mx_cm_rows *r, const int8_t *in, int8_t *out, int32_t i, mx_cm_rows_call *call);

/* The overlap rule of a call (mx_kernel_entry.overlap): argument `arg` is the input (position 0), the out fits,
 * and every group's call picks the same CMSIS-NN function as the whole call (`same`, may be NULL). */
bool mx_cm_rows_overlap(const mx_cm_rows *r, uint32_t arg, const void *in, const void *out,
                        bool (*same)(const void *op, const mx_cm_rows *r, int32_t pad, int32_t rows), const void *op);

#endif
