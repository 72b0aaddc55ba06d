#include "mx_dim_order_convert.h"

#include "mx_args.h"
#include "mx_convert.h"
#include "mx_dim_order_copy.h"

#define A(name) MX_ARG_dim_order_ops_to_dim_order_copy_##name

mx_arg_error mx_dim_order_convert_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_REFUSE_IF(in->dtype != out->dtype && (!mx_convert_supports(in->dtype) || !mx_convert_supports(out->dtype)), A(out),
               MX_ERR_BAD_DTYPE);
  return mx_dim_order_layout_check(args);
}

void mx_dim_order_convert(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  if (in->dtype == out->dtype) {
    mx_dim_order_copy(args);
    return;
  }
  uint32_t src_strides[MX_MAX_DIM], dst_strides[MX_MAX_DIM];
  mx_dim_order_copy_strides(args, src_strides, dst_strides);
  mx_strided_convert(out->data, out->dtype, dst_strides, in->data, in->dtype, src_strides, out->sizes, out->dim);
}
