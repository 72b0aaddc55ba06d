/* dim_order_ops::_to_dim_order_copy.out: (self, non_blocking, dim_order?, out, ret). What `.to()` lowers
 * to: copies self into out's memory order and converts it to out's dtype. A Null dim_order means
 * torch.preserve_format (ExecuTorch's get_memory_format): out keeps self's dim order. */
#include "util/mx_args.h"
#include "util/mx_convert.h"
#include "util/mx_strided_copy.h"
#include "util/mx_tensor_util.h"

static bool is_permutation(const uint8_t *order, uint32_t dim) {
  bool seen[MX_MAX_DIM] = {false};
  for (uint32_t i = 0; i < dim; ++i) {
    if (order[i] >= dim || seen[order[i]]) {
      return false;
    }
    seen[order[i]] = true;
  }
  return true;
}

mx_error mx_k_dim_order_ops_to_dim_order_copy_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 5) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *out = NULL;
  bool non_blocking = false, has_order = false;
  const int64_t *order = NULL;
  uint32_t len = 0;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_bool(args[1], &non_blocking));
  MX_TRY(mx_arg_opt_int_list(args[2], &has_order, &order, &len));
  MX_TRY(mx_arg_tensor(args[3], &out));
  MX_TRY(mx_arg_ret_is(args[4], out));
  MX_TRY(mx_tensor_check(in));
  MX_TRY(mx_tensor_check(out));
  if (in->dtype != out->dtype && (!mx_convert_supports(in->dtype) || !mx_convert_supports(out->dtype))) {
    return MX_ERR_BAD_DTYPE;
  }
  if (!mx_same_shape(in, out)) {
    return MX_ERR_BAD_SHAPE;
  }
  uint32_t r = out->dim;
  if (!is_permutation(in->dim_order, r) || !is_permutation(out->dim_order, r)) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  /* The requested order must be the one out was planned with (Null: self's). */
  if (has_order && len != r) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  for (uint32_t i = 0; i < r; ++i) {
    int64_t want = has_order ? order[i] : (int64_t)in->dim_order[i];
    if (want != out->dim_order[i]) {
      return MX_ERR_BAD_ARG_VALUE;
    }
  }
  uint32_t src_strides[MX_MAX_DIM], dst_strides[MX_MAX_DIM];
  mx_strides_from_dim_order(in->sizes, in->dim_order, r, src_strides);
  mx_strides_from_dim_order(out->sizes, out->dim_order, r, dst_strides);
  if (in->dtype == out->dtype) {
    mx_strided_copy(out->data, dst_strides, in->data, src_strides, out->sizes, r, mx_dtype_size(out->dtype));
  } else {
    mx_strided_convert(out->data, out->dtype, dst_strides, in->data, in->dtype, src_strides, out->sizes, r);
  }
  return MX_OK;
}
