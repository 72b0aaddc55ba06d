#include "mx_unary_f32.h"

#include "mx_tensor_util.h"

mx_arg_error mx_unary_f32_check(mx_value *const *args, uint32_t self_i, uint32_t out_i) {
  const mx_tensor *self = mx_arg_tensor(args, self_i), *o = mx_arg_tensor(args, out_i);
  if (mx_same_dim_order(self, o)) {
    /* one dim order, whichever: each element sits at the same offset in both, so the loop over memory holds */
    MX_CHECK(self_i, mx_check_dtype(self, MX_DTYPE_F32));
    MX_CHECK(out_i, mx_check_dtype(o, MX_DTYPE_F32));
  } else {
    MX_TRY(mx_check_arg_tensor(args, self_i, MX_DTYPE_F32));
    MX_TRY(mx_check_arg_tensor(args, out_i, MX_DTYPE_F32));
  }
  MX_REFUSE_IF(!mx_same_shape(self, o), out_i, MX_ERR_BAD_SHAPE);
  return MX_OK;
}
