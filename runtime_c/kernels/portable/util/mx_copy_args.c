#include "mx_copy_args.h"

#include "mx_args.h"
#include "mx_tensor_util.h"

_Static_assert(MX_ARG_aten_view_copy_self == MX_ARG_aten_permute_copy_self &&
                   MX_ARG_aten_view_copy_size == MX_ARG_aten_permute_copy_dims &&
                   MX_ARG_aten_view_copy_out == MX_ARG_aten_permute_copy_out,
               "view_copy's arguments sit where permute_copy's do");

mx_arg_error mx_copy_check(mx_value *const *args) {
  const mx_tensor *self = mx_arg_tensor(args, MX_ARG_aten_permute_copy_self);
  const mx_tensor *out = mx_arg_tensor(args, MX_ARG_aten_permute_copy_out);
  MX_CHECK(MX_ARG_aten_permute_copy_self, mx_check_contiguous(self));
  MX_CHECK(MX_ARG_aten_permute_copy_out, mx_check_contiguous(out));
  MX_REFUSE_IF(self->dtype != out->dtype, MX_ARG_aten_permute_copy_out, MX_ERR_BAD_DTYPE);
  return MX_OK;
}
