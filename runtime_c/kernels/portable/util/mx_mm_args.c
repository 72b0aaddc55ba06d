#include "mx_mm_args.h"

#include "mx_args.h"
#include "mx_tensor_util.h"

mx_error mx_mm_args(mx_value *const *args, uint32_t nargs, mx_tensor **self, mx_tensor **mat2, mx_tensor **out) {
  if (nargs != 4) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  MX_TRY(mx_arg_tensor(args[0], self));
  MX_TRY(mx_arg_tensor(args[1], mat2));
  MX_TRY(mx_arg_tensor(args[2], out));
  MX_TRY(mx_arg_ret_is(args[3], *out));
  MX_TRY(mx_check_tensor(*self, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(*mat2, MX_DTYPE_F32));
  return mx_check_tensor(*out, MX_DTYPE_F32);
}
