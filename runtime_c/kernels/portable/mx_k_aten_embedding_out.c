/* aten::embedding.out, any weight dtype: (weight, indices, padding_idx, scale_grad_by_freq, sparse, out,
 * ret). out[i..., :] = weight[indices[i...], :]; indices int32 or int64. The training-only arguments change
 * nothing at inference. The indices are data, so their range is checked as they are read. */
#include <string.h>

#include "util/mx_args.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_embedding_##name

mx_arg_error mx_k_aten_embedding_out_check(mx_value *const *args) {
  const mx_tensor *w = mx_arg_tensor(args, A(weight)), *idx = mx_arg_tensor(args, A(indices));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  MX_CHECK(A(weight), mx_check_contiguous(w));
  MX_CHECK(A(indices), mx_check_contiguous(idx));
  MX_CHECK(A(out), mx_check_contiguous(out));
  MX_REFUSE_IF(w->dim != 2, A(weight), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(idx->dtype != MX_DTYPE_I64 && idx->dtype != MX_DTYPE_I32, A(indices), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(out->dtype != w->dtype, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(idx->dim + 1u > MX_MAX_DIM, A(indices), MX_ERR_BAD_SHAPE);
  int32_t sizes[MX_MAX_DIM];
  for (uint32_t d = 0; d < idx->dim; ++d) {
    sizes[d] = idx->sizes[d];
  }
  sizes[idx->dim] = w->sizes[1];
  MX_CHECK(A(out), mx_check_sizes(out, sizes, idx->dim + 1u));
  return MX_OK;
}

mx_error mx_k_aten_embedding_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *w = mx_arg_tensor(args, A(weight)), *idx = mx_arg_tensor(args, A(indices));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  const size_t row = (size_t)w->sizes[1] * mx_dtype_size(w->dtype);
  const int64_t rows = w->sizes[0];
  for (uint32_t i = 0; i < idx->numel; ++i) {
    const int64_t k = idx->dtype == MX_DTYPE_I64 ? ((const int64_t *)idx->data)[i] : ((const int32_t *)idx->data)[i];
    if (k < 0 || k >= rows) {
      return MX_ERR_BAD_ARG_VALUE; /* torch: index out of range in self */
    }
    if (row != 0) {
      memcpy((uint8_t *)out->data + (size_t)i * row, (const uint8_t *)w->data + (size_t)k * row, row);
    }
  }
  return MX_OK;
}
