#ifndef MX_CM_ARGS_H
#define MX_CM_ARGS_H
/* What the cortex_m kernels, which hand int8 tensors to CMSIS-NN functions, check at load and read at
 * execution. The portable helpers (util/mx_args.h, util/mx_tensor_util.h) read and check the values, the
 * loader checks int ranges (mx/op_args.h); these add what CMSIS-NN relies on: NHWC memory, per-channel
 * vectors, scratch large enough. */
#include "arm_nn_types.h"
#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

/* A schema `int` whose range (mx/op_args.h, checked by the loader) fits int32. */
static inline int32_t mx_cm_int(mx_value *const *args, uint32_t i) { return (int32_t)mx_arg_int(args, i); }

/* A schema `int[]` of one (repeated) or two items (their range is the loader's to check). */
mx_error mx_cm_pair_check(const mx_int_list *l);
/* Once checked: (h, w). */
void mx_cm_pair(const mx_int_list *l, int32_t out[2]);

/* Tensor argument args[i] is a 4-D int8 tensor whose memory is NHWC (else the error, naming it).
 * `nhwc_logical`: sizes are [N, H, W, C] with contiguous dim order (the *_nhwc ops); else sizes are
 * [N, C, H, W] in channels-last dim order (0, 2, 3, 1), or contiguous when that holds the same bytes
 * (C == 1 or H == W == 1). */
mx_arg_error mx_cm_nhwc_arg(mx_value *const *args, uint32_t i, bool nhwc_logical);
/* Once checked: the tensor as CMSIS-NN dims. */
cmsis_nn_dims mx_cm_nhwc(const mx_tensor *t, bool nhwc_logical);

/* Tensor argument args[i] is an int32 constant (any shape, contiguous; not planned: checks read its values)
 * of exactly n elements (else the error, naming it). */
mx_arg_error mx_cm_i32_vector(mx_value *const *args, uint32_t i, int32_t n);

/* Physical (memory-order) sizes of a tensor of rank <= 4, padded in front with 1 to four. */
void mx_cm_physical4(const mx_tensor *t, int32_t sizes[4]);

/* a and b hold the same elements at the same byte offsets: equal sizes, and equal dim orders once the
 * size-1 dims (which do not move any byte) are left out. */
bool mx_cm_same_memory(const mx_tensor *a, const mx_tensor *b);

/* The scratch tensor holds at least `need` bytes (the _get_buffer_size of the function that will run, on
 * this build) and is 4-byte aligned. */
mx_error mx_cm_scratch_check(const mx_tensor *scratch, int32_t need);
/* Once checked: the scratch tensor as a CMSIS-NN context. */
cmsis_nn_context mx_cm_scratch(const mx_tensor *scratch);

/* The arguments of quantize_per_tensor and dequantize_per_tensor (one layout). */
typedef struct {
  mx_tensor *in, *out;
  double scale;
  int32_t zero_point, quant_min, quant_max, dtype;
} mx_cm_qparams;

mx_cm_qparams mx_cm_qparams_read(mx_value *const *args);
/* Load time, quantize (float32 input) or dequantize (float32 out): the other side int8/int16 as `dtype` says,
 * input and out laid out alike, scale finite (and positive to quantize), quant_min <= quant_max (and within
 * the int type to quantize). */
mx_arg_error mx_cm_qparams_check(mx_value *const *args, bool quantize);

/* A CMSIS-NN status as an mx_error. */
mx_error mx_cm_status(arm_cmsis_nn_status status);

#endif
