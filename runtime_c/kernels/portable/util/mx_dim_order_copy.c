#include "mx_dim_order_copy.h"

#include "mx_args.h"
#include "mx_strided_copy.h"
#include "mx_tensor_util.h"

_Static_assert(MX_ARG_dim_order_ops_clone_dim_order_self == MX_ARG_dim_order_ops_to_dim_order_copy_self &&
                   MX_ARG_dim_order_ops_clone_dim_order_dim_order == MX_ARG_dim_order_ops_to_dim_order_copy_dim_order &&
                   MX_ARG_dim_order_ops_clone_dim_order_out == MX_ARG_dim_order_ops_to_dim_order_copy_out,
               "_clone_dim_order's arguments sit where _to_dim_order_copy's do");

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

mx_arg_error mx_dim_order_layout_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
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

mx_arg_error mx_dim_order_copy_check(mx_value *const *args) {
  MX_REFUSE_IF(mx_arg_tensor(args, A(self))->dtype != mx_arg_tensor(args, A(out))->dtype, A(out), MX_ERR_BAD_DTYPE);
  return mx_dim_order_layout_check(args);
}

void mx_dim_order_copy_strides(mx_value *const *args, uint32_t src_strides[MX_MAX_DIM],
                               uint32_t dst_strides[MX_MAX_DIM]) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  mx_strides_from_dim_order(in->sizes, in->dim_order, in->dim, src_strides);
  mx_strides_from_dim_order(out->sizes, out->dim_order, out->dim, dst_strides);
}

void mx_dim_order_copy(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  uint32_t src_strides[MX_MAX_DIM], dst_strides[MX_MAX_DIM];
  mx_dim_order_copy_strides(args, src_strides, dst_strides);
  mx_strided_copy(out->data, dst_strides, in->data, src_strides, out->sizes, out->dim, mx_dtype_size(out->dtype));
}
