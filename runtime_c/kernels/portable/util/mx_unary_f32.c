#include "mx_unary_f32.h"

#include "mx_args.h"
#include "mx_tensor_util.h"

mx_error mx_unary_f32_args(mx_value *const *args, uint32_t self_i, uint32_t out_i, const float **in,
                           float **out, uint32_t *numel) {
  mx_tensor *self = NULL, *o = NULL;
  MX_TRY(mx_arg_tensor(args[self_i], &self));
  MX_TRY(mx_arg_tensor(args[out_i], &o));
  MX_TRY(mx_arg_ret_is(args[out_i + 1u], o));
  MX_TRY(mx_check_tensor(self, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(o, MX_DTYPE_F32));
  if (!mx_same_shape(self, o)) {
    return MX_ERR_BAD_SHAPE;
  }
  *in = (const float *)self->data;
  *out = (float *)o->data;
  *numel = o->numel;
  return MX_OK;
}
