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

#define A(name) MX_ARG_dim_order_ops_to_dim_order_copy_##name

mx_arg_error mx_k_dim_order_ops_to_dim_order_copy_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_REFUSE_IF(in->dtype != out->dtype && (!mx_convert_supports(in->dtype) || !mx_convert_supports(out->dtype)), A(out),
               MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(!mx_same_shape(in, out), A(out), MX_ERR_BAD_SHAPE);
  uint32_t r = out->dim;
  MX_REFUSE_IF(!is_permutation(in->dim_order, r), A(self), MX_ERR_BAD_ARG_VALUE);
  MX_REFUSE_IF(!is_permutation(out->dim_order, r), A(out), MX_ERR_BAD_ARG_VALUE);
  /* The requested order must be the one out was planned with (Null: self's). */
  const bool has_order = !mx_arg_none(args, A(dim_order));
  const mx_int_list order = mx_arg_opt_int_list(args, A(dim_order));
  MX_REFUSE_IF(has_order && order.len != r, A(dim_order), MX_ERR_BAD_ARG_VALUE);
  for (uint32_t i = 0; i < r; ++i) {
    int64_t want = has_order ? order.items[i] : (int64_t)in->dim_order[i];
    MX_REFUSE_IF(want != out->dim_order[i], A(dim_order), MX_ERR_BAD_ARG_VALUE);
  }
  return MX_OK;
}

mx_error mx_k_dim_order_ops_to_dim_order_copy_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const uint32_t r = out->dim;
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
