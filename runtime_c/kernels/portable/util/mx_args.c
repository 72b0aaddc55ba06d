#include "mx_args.h"

#include "mx_int_float.h"

double mx_arg_double(mx_value *const *args, uint32_t i) {
  const mx_value *v = args[i];
  return v->tag == MX_TAG_DOUBLE ? v->u.d : mx_i64_to_f64(v->u.i);
}

double mx_arg_scalar(mx_value *const *args, uint32_t i) {
  if (args[i]->tag == MX_TAG_BOOL) {
    return args[i]->u.b ? 1.0 : 0.0;
  }
  return mx_arg_double(args, i);
}
