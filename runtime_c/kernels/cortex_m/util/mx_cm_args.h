#ifndef MX_CM_ARGS_H
#define MX_CM_ARGS_H
/* Argument checks shared by the cortex_m kernels, which hand int8 tensors to CMSIS-NN functions. The
 * portable helpers (util/mx_args.h, util/mx_tensor_util.h) read the values; these add what CMSIS-NN
 * relies on: int32 ranges, NHWC memory, per-channel vectors, scratch large enough for this build. */
#include "arm_nn_types.h"
#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

/* A schema `int` that must fit int32 (else MX_ERR_BAD_ARG_VALUE). */
mx_error mx_cm_int32(const mx_value *v, int32_t *out);

/* A schema `int` in [lo, hi] (else MX_ERR_BAD_ARG_VALUE). */
mx_error mx_cm_int_in(const mx_value *v, int32_t lo, int32_t hi, int32_t *out);

/* A schema `int[]` of one (repeated) or two items, each in [lo, hi]: (h, w). */
mx_error mx_cm_pair(const mx_value *v, int32_t lo, int32_t hi, int32_t out[2]);

/* A well-formed 4-D int8 tensor whose memory is NHWC, as CMSIS-NN dims. `nhwc_logical`: sizes are
 * [N, H, W, C] with contiguous dim order (the *_nhwc ops); else sizes are [N, C, H, W] in channels-last
 * dim order (0, 2, 3, 1), or contiguous when that holds the same bytes (C == 1 or H == W == 1). */
mx_error mx_cm_nhwc(const mx_tensor *t, bool nhwc_logical, cmsis_nn_dims *dims);

/* An int32 tensor (any shape, contiguous) of exactly n elements. */
mx_error mx_cm_i32_vector(const mx_tensor *t, int32_t n, int32_t **data);

/* Physical (memory-order) sizes of a tensor of rank <= 4, padded in front with 1 to four. */
mx_error mx_cm_physical4(const mx_tensor *t, int32_t sizes[4]);

/* a and b hold the same elements at the same byte offsets: equal sizes, and equal dim orders once the
 * size-1 dims (which do not move any byte) are left out. */
bool mx_cm_same_memory(const mx_tensor *a, const mx_tensor *b);

/* The scratch tensor as a CMSIS-NN context, after checking it holds at least `need` bytes (the
 * _get_buffer_size of the function about to run, on this build) and is 4-byte aligned. */
mx_error mx_cm_scratch(const mx_tensor *scratch, int32_t need, cmsis_nn_context *ctx);

/* The arguments of quantize_per_tensor and dequantize_per_tensor. */
typedef struct {
  mx_tensor *in, *out;
  double scale;
  int32_t zero_point, quant_min, quant_max, dtype;
} mx_cm_qparams;

/* (input, scale, zero_point, quant_min, quant_max, dtype, out, ret): nargs must be 8 (else
 * MX_ERR_BAD_ARG_COUNT); each value read as its schema type, the ints as int32, ret must be out. Dtypes,
 * shapes and ranges are the caller's to check. */
mx_error mx_cm_qparams_args(mx_value *const *args, uint32_t nargs, mx_cm_qparams *q);

/* A CMSIS-NN status as an mx_error. */
mx_error mx_cm_status(arm_cmsis_nn_status status);

#endif
