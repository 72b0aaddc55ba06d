#ifndef MX_CM_POOL_ARGS_H
#define MX_CM_POOL_ARGS_H
/* What the two poolings share (both spellings of each: see mx_cm_conv_args.h). CMSIS-NN clips each window
 * to the input, so padding never takes part (average: count_include_pad=False, which ExecuTorch's lowering
 * asks for; it inserts an explicit pad op otherwise). */
#include "mx_cm_conv_args.h"

typedef struct mx_cm_pool {
  mx_tensor *in, *out;
  cmsis_nn_dims in_dims, out_dims;
  int32_t kernel[2], stride[2], pad[2];
} mx_cm_pool;

#define MX_CM_POOL_MAX (1 << 16)

/* Execution: input, kernel_size, stride, padding (the leading arguments of both) and out (args[out_i]). */
void mx_cm_pool_read(mx_value *const *args, uint32_t out_i, bool nhwc, mx_cm_pool *p);

/* Load time: the window's pairs in range, NHWC memory, 2 * padding <= kernel, out's size as torch gives it;
 * then p is read. */
mx_arg_error mx_cm_pool_check(mx_value *const *args, uint32_t out_i, bool nhwc, bool ceil_mode, mx_cm_pool *p);

struct mx_cm_rows;
/* The rows of a pooling (mx_cm_rows.h). */
struct mx_cm_rows mx_cm_pool_geometry(const mx_cm_pool *p);

/* The overlap rule of a pooling whose out is args[out_i] (mx_cm_rows.h). */
bool mx_cm_pool_overlap(mx_value *const *args, uint32_t arg, uint32_t out_i, bool nhwc);

#endif
