#include "mx_unary_f32.h"

#include "mx_args.h"
#include "mx_tensor_util.h"

mx_error mx_unary_f32_args(mx_value *const *args, uint32_t nargs, mx_unary_f32 *u) {
  if (nargs != 3) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  return mx_unary_f32_at(args, 0, 1, u);
}

mx_error mx_unary_f32_at(mx_value *const *args, uint32_t self_i, uint32_t out_i, mx_unary_f32 *u) {
  mx_tensor *self = NULL, *o = NULL;
  MX_TRY(mx_arg_tensor(args[self_i], &self));
  MX_TRY(mx_arg_tensor(args[out_i], &o));
  MX_TRY(mx_arg_ret_is(args[out_i + 1u], o));
  MX_TRY(mx_check_tensor(self, MX_DTYPE_F32));
  MX_TRY(mx_check_tensor(o, MX_DTYPE_F32));
  if (!mx_same_shape(self, o)) {
    return MX_ERR_BAD_SHAPE;
  }
  u->in = (const float *)self->data;
  u->out = (float *)o->data;
  u->numel = o->numel;
  return MX_OK;
}
