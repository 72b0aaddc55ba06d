#include "mx_args.h"

#include "mx_int_float.h"

mx_error mx_arg_tensor(const mx_value *v, mx_tensor **out) {
  if (v == NULL || v->tag != MX_TAG_TENSOR || v->u.t == NULL) {
    return MX_ERR_BAD_ARG_TYPE;
  }
  *out = v->u.t;
  return MX_OK;
}

mx_error mx_arg_opt_tensor(const mx_value *v, mx_tensor **out) {
  if (v != NULL && (v->tag == MX_TAG_NULL || v->tag == MX_TAG_NONE)) {
    *out = NULL;
    return MX_OK;
  }
  return mx_arg_tensor(v, out);
}

mx_error mx_arg_int(const mx_value *v, int64_t *out) {
  if (v == NULL || v->tag != MX_TAG_INT) {
    return MX_ERR_BAD_ARG_TYPE;
  }
  *out = v->u.i;
  return MX_OK;
}

mx_error mx_arg_bool(const mx_value *v, bool *out) {
  if (v == NULL || v->tag != MX_TAG_BOOL) {
    return MX_ERR_BAD_ARG_TYPE;
  }
  *out = v->u.b;
  return MX_OK;
}

mx_error mx_arg_double(const mx_value *v, double *out) {
  if (v != NULL && v->tag == MX_TAG_DOUBLE) {
    *out = v->u.d;
    return MX_OK;
  }
  if (v != NULL && v->tag == MX_TAG_INT) {
    *out = mx_i64_to_f64(v->u.i);
    return MX_OK;
  }
  return MX_ERR_BAD_ARG_TYPE;
}

mx_error mx_arg_scalar_as_double(const mx_value *v, double *out) {
  if (v != NULL && v->tag == MX_TAG_BOOL) {
    *out = v->u.b ? 1.0 : 0.0;
    return MX_OK;
  }
  return mx_arg_double(v, out);
}

mx_error mx_arg_opt_scalar_as_double(const mx_value *v, bool *present, double *out) {
  if (v != NULL && (v->tag == MX_TAG_NULL || v->tag == MX_TAG_NONE)) {
    *present = false;
    *out = 0.0;
    return MX_OK;
  }
  *present = true;
  return mx_arg_scalar_as_double(v, out);
}

mx_error mx_arg_int_list(const mx_value *v, const int64_t **items, uint32_t *len) {
  if (v == NULL || v->tag != MX_TAG_INT_LIST || (v->u.ints.items == NULL && v->u.ints.len != 0)) {
    return MX_ERR_BAD_ARG_TYPE;
  }
  *items = v->u.ints.items;
  *len = v->u.ints.len;
  return MX_OK;
}

mx_error mx_arg_opt_int_list(const mx_value *v, bool *present, const int64_t **items, uint32_t *len) {
  if (v != NULL && (v->tag == MX_TAG_NULL || v->tag == MX_TAG_NONE)) {
    *present = false;
    *items = NULL;
    *len = 0;
    return MX_OK;
  }
  *present = true;
  return mx_arg_int_list(v, items, len);
}

mx_error mx_arg_tensor_list(const mx_value *v, mx_tensor *const **items, uint32_t *len) {
  if (v == NULL || v->tag != MX_TAG_TENSOR_LIST || (v->u.tensors.items == NULL && v->u.tensors.len != 0)) {
    return MX_ERR_BAD_ARG_TYPE;
  }
  for (uint32_t i = 0; i < v->u.tensors.len; ++i) {
    if (v->u.tensors.items[i] == NULL) {
      return MX_ERR_BAD_ARG_TYPE;
    }
  }
  *items = v->u.tensors.items;
  *len = v->u.tensors.len;
  return MX_OK;
}

mx_error mx_arg_ret_is(const mx_value *ret, const mx_tensor *out) {
  mx_tensor *t = NULL;
  MX_TRY(mx_arg_tensor(ret, &t));
  return t == out ? MX_OK : MX_ERR_BAD_ARG_VALUE;
}

mx_error mx_arg_ret_list_is(const mx_value *ret, const mx_tensor *const *outs, uint32_t n) {
  mx_tensor *const *items = NULL;
  uint32_t len = 0;
  MX_TRY(mx_arg_tensor_list(ret, &items, &len));
  if (len != n) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (items[i] != outs[i]) {
      return MX_ERR_BAD_ARG_VALUE;
    }
  }
  return MX_OK;
}
