#ifndef MX_PORTABLE_ARGS_H
#define MX_PORTABLE_ARGS_H
/* Checked access to kernel arguments. Each getter returns MX_ERR_BAD_ARG_TYPE when the value's tag is
 * not what the schema says, so a kernel can read its arguments with one `MX_TRY` per line. */
#include "mx/kernel.h"

#define MX_TRY(expr)                   \
  do {                                 \
    mx_error mx_try_err_ = (expr);     \
    if (mx_try_err_ != MX_OK) {        \
      return mx_try_err_;              \
    }                                  \
  } while (0)

mx_error mx_arg_tensor(const mx_value *v, mx_tensor **out);
/* Tensor or Null (an optional tensor); *out is NULL for Null. */
mx_error mx_arg_opt_tensor(const mx_value *v, mx_tensor **out);
mx_error mx_arg_int(const mx_value *v, int64_t *out);
mx_error mx_arg_bool(const mx_value *v, bool *out);
/* A schema `float`: Double (an Int is accepted too, as a whole-valued float). */
mx_error mx_arg_double(const mx_value *v, double *out);
/* A schema `Scalar`: Int, Double or Bool. */
mx_error mx_arg_scalar_as_double(const mx_value *v, double *out);
/* A schema `Scalar?`: *present is false for Null. */
mx_error mx_arg_opt_scalar_as_double(const mx_value *v, bool *present, double *out);
mx_error mx_arg_int_list(const mx_value *v, const int64_t **items, uint32_t *len);
/* A schema `int[]?`: Null gives len 0 and *present false. */
mx_error mx_arg_opt_int_list(const mx_value *v, bool *present, const int64_t **items, uint32_t *len);
mx_error mx_arg_tensor_list(const mx_value *v, mx_tensor *const **items, uint32_t *len);

/* The return value of a single-out kernel must be the out tensor itself (the emitter repeats its EValue). */
mx_error mx_arg_ret_is(const mx_value *ret, const mx_tensor *out);
/* The return value of a multi-out kernel: a TensorList naming exactly `outs`, in order. */
mx_error mx_arg_ret_list_is(const mx_value *ret, const mx_tensor *const *outs, uint32_t n);

#endif
