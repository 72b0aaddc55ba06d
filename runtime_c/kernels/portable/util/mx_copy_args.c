#include "mx_copy_args.h"

#include "mx_args.h"
#include "mx_tensor_util.h"

mx_error mx_copy_args(mx_value *const *args, uint32_t nargs, mx_tensor **self, const int64_t **items, uint32_t *len,
                      mx_tensor **out) {
  if (nargs != 4) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  MX_TRY(mx_arg_tensor(args[0], self));
  MX_TRY(mx_arg_int_list(args[1], items, len));
  MX_TRY(mx_arg_tensor(args[2], out));
  MX_TRY(mx_arg_ret_is(args[3], *out));
  MX_TRY(mx_check_contiguous(*self));
  MX_TRY(mx_check_contiguous(*out));
  return (*self)->dtype == (*out)->dtype ? MX_OK : MX_ERR_BAD_DTYPE;
}
