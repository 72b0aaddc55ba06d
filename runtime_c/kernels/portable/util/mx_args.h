#ifndef MX_PORTABLE_ARGS_H
#define MX_PORTABLE_ARGS_H
/* Reading kernel arguments. The loader has checked every argument's tag against the op's schema
 * (mx_kernel_check_call), so these read without checking: index with the MX_ARG_* names of mx/op_args.h. */
#include "mx/kernel.h"

/* Returns expr's error, if any: an mx_error, or in a check an mx_arg_error as it is. */
#define MX_TRY(expr)                         \
  do {                                       \
    uint32_t mx_try_err_ = (uint32_t)(expr); \
    if (mx_try_err_ != MX_OK) {              \
      return mx_try_err_;                    \
    }                                        \
  } while (0)

typedef struct mx_tensor_list {
  mx_tensor *const *items;
  uint32_t len;
} mx_tensor_list;

static inline mx_tensor *mx_arg_tensor(mx_value *const *args, uint32_t i) { return args[i]->u.t; }

/* An optional argument given as Null (or None). */
static inline bool mx_arg_none(mx_value *const *args, uint32_t i) {
  return args[i]->tag == MX_TAG_NULL || args[i]->tag == MX_TAG_NONE;
}

/* A `Tensor?`: NULL when absent. */
static inline mx_tensor *mx_arg_opt_tensor(mx_value *const *args, uint32_t i) {
  return mx_arg_none(args, i) ? NULL : args[i]->u.t;
}

static inline int64_t mx_arg_int(mx_value *const *args, uint32_t i) { return mx_value_int(args[i]); }

static inline bool mx_arg_bool(mx_value *const *args, uint32_t i) { return args[i]->u.b; }

/* An `int[]`, in place. */
static inline const mx_int_list *mx_arg_int_list(mx_value *const *args, uint32_t i) { return &args[i]->u.ints; }

/* An `int[]?`: absent reads as empty. */
static inline mx_int_list mx_arg_opt_int_list(mx_value *const *args, uint32_t i) {
  return mx_arg_none(args, i) ? (mx_int_list){NULL, 0} : args[i]->u.ints;
}

static inline mx_tensor_list mx_arg_tensor_list(mx_value *const *args, uint32_t i) {
  return (mx_tensor_list){args[i]->u.tensors.items, args[i]->u.tensors.len};
}

/* A schema `float`: a Double, or an Int as a whole-valued float. */
double mx_arg_double(mx_value *const *args, uint32_t i);
/* A schema `Scalar`: Int, Double or Bool, as a double. */
double mx_arg_scalar(mx_value *const *args, uint32_t i);

#endif
