#include "mx_args.h"

#include "mx_int_float.h"

double mx_arg_double(mx_value *const *args, uint32_t i) {
  const mx_value *v = args[i];
  return v->tag == MX_TAG_DOUBLE ? mx_value_double(v) : mx_i64_to_f64(mx_value_int(v));
}

double mx_arg_scalar(mx_value *const *args, uint32_t i) {
  if (args[i]->tag == MX_TAG_BOOL) {
    return args[i]->u.b ? 1.0 : 0.0;
  }
  return mx_arg_double(args, i);
}
