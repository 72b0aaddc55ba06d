#ifndef MX_PORTABLE_TENSOR_UTIL_H
#define MX_PORTABLE_TENSOR_UTIL_H
/* Tensor checks shared by the portable kernels' load-time checks: what a kernel relies on beyond the
 * well-formed tensors the loader builds (dtype, rank, contiguous dim order, sizes). */
#include "mx/kernel.h"

/* Well-formed: rank <= MX_MAX_DIM, sizes >= 0 whose product is numel, numel * element size fits 32 bits, data set when
 * numel > 0, known dtype. The loader builds every tensor so (tensor_load.c) and kernels rely on it; the
 * kernel test harness applies this to the tensors it builds by hand, as a load would. */
mx_error mx_tensor_check(const mx_tensor *t);

/* dim_order is 0..dim-1 (contiguous, row-major). */
bool mx_is_contiguous(const mx_tensor *t);

/* Rank 4 in dim order [0, 2, 3, 1] (channels-last): memory runs N, H, W, C while sizes stay [N, C, H, W]. */
bool mx_is_channels_last(const mx_tensor *t);

/* Channels-last with the bytes of the contiguous order: C == 1, or H == W == 1 (an [N, C, 1, 1] result). */
bool mx_channels_last_as_contiguous(const mx_tensor *t);

/* One rank and one dim order: tensors of one shape then hold each element at the same offset. */
bool mx_same_dim_order(const mx_tensor *a, const mx_tensor *b);

/* Element strides of each dim in t's memory: 1 for the last dim of its dim order, growing outwards. */
void mx_dim_order_strides(const mx_tensor *t, uint32_t *strides);

/* Of dtype `dtype` (else MX_ERR_BAD_DTYPE), in any dim order. */
mx_error mx_check_dtype(const mx_tensor *t, mx_dtype dtype);

/* Of dtype `dtype`, contiguous (else MX_ERR_BAD_ARG_VALUE). */
mx_error mx_check_tensor(const mx_tensor *t, mx_dtype dtype);

/* Of dtype `dtype`, contiguous or channels-last (else MX_ERR_BAD_ARG_VALUE). */
mx_error mx_check_tensor_or_channels_last(const mx_tensor *t, mx_dtype dtype);

/* mx_check_tensor on tensor argument args[i], naming it when it fails. */
mx_arg_error mx_check_arg_tensor(mx_value *const *args, uint32_t i, mx_dtype dtype);

/* mx_check_arg_tensor on each of the n tensor arguments args[indices[k]]. */
mx_arg_error mx_check_arg_tensors(mx_value *const *args, const uint8_t *indices, uint32_t n, mx_dtype dtype);

/* Contiguous, of any dtype (the layout kernels copy bytes). */
mx_error mx_check_contiguous(const mx_tensor *t);

/* `t` has exactly these sizes (else MX_ERR_BAD_SHAPE). */
mx_error mx_check_sizes(const mx_tensor *t, const int32_t *sizes, uint32_t dim);
bool mx_same_shape(const mx_tensor *a, const mx_tensor *b);

/* Wraps a possibly negative dim into [0, rank); rank 0 accepts 0 and -1 as torch does. */
mx_error mx_wrap_dim(int64_t d, uint32_t rank, uint32_t *out);

/* mx_wrap_dim once checked: the dim in [0, rank), 0 for a scalar. */
static inline uint32_t mx_wrapped_dim(int64_t d, uint32_t rank) {
  return (uint32_t)(d < 0 ? d + (int64_t)(rank == 0 ? 1 : rank) : d);
}

/* Product of sizes[from..to). */
uint32_t mx_size_prod(const int32_t *sizes, uint32_t from, uint32_t to);

/* The single element of a one-element tensor of any dtype but float16, as a float (checked beforehand). */
float mx_tensor_item_as_float(const mx_tensor *t);

#endif
