#include "mx_binary_f32.h"

#include "mx_args.h"
#include "mx_broadcast.h"
#include "mx_odometer.h"
#include "mx_tensor_util.h"

/* A float32 tensor, or a one-element tensor of another dtype held in *scalar. */
static mx_error operand(const mx_tensor *t, float *scalar, const float **data) {
  if (t->dtype == MX_DTYPE_F32) {
    MX_TRY(mx_check_tensor(t, MX_DTYPE_F32));
    *data = (const float *)t->data;
    return MX_OK;
  }
  if (t->numel != 1) {
    return MX_ERR_BAD_DTYPE;
  }
  MX_TRY(mx_tensor_item_as_float(t, scalar));
  *data = scalar;
  return MX_OK;
}

static void row(mx_binop op, float alpha, const float *a, uint32_t sa, const float *b, uint32_t sb,
                float *o, uint32_t n) {
  switch (op) {
    case MX_BINOP_ADD:
      for (uint32_t i = 0; i < n; ++i) o[i] = a[i * sa] + alpha * b[i * sb];
      break;
    case MX_BINOP_SUB:
      for (uint32_t i = 0; i < n; ++i) o[i] = a[i * sa] - alpha * b[i * sb];
      break;
    case MX_BINOP_MUL:
      for (uint32_t i = 0; i < n; ++i) o[i] = a[i * sa] * b[i * sb];
      break;
    case MX_BINOP_DIV:
      for (uint32_t i = 0; i < n; ++i) o[i] = a[i * sa] / b[i * sb];
      break;
  }
}

mx_error mx_binary_f32(mx_value *const *args, uint32_t nargs, mx_binop op) {
  bool has_alpha = op == MX_BINOP_ADD || op == MX_BINOP_SUB;
  uint32_t out_i = has_alpha ? 3u : 2u;
  if (nargs != out_i + 2u) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *a = NULL, *b = NULL, *out = NULL;
  MX_TRY(mx_arg_tensor(args[0], &a));
  MX_TRY(mx_arg_tensor(args[1], &b));
  double alpha = 1.0;
  if (has_alpha) {
    MX_TRY(mx_arg_scalar_as_double(args[2], &alpha));
  }
  MX_TRY(mx_arg_tensor(args[out_i], &out));
  MX_TRY(mx_arg_ret_is(args[out_i + 1u], out));
  MX_TRY(mx_check_tensor(out, MX_DTYPE_F32));
  if (op == MX_BINOP_SUB && (a->dtype == MX_DTYPE_BOOL || b->dtype == MX_DTYPE_BOOL)) {
    return MX_ERR_BAD_DTYPE; /* torch refuses to subtract booleans */
  }
  float a_scalar = 0.0f, b_scalar = 0.0f;
  const float *pa = NULL, *pb = NULL;
  MX_TRY(operand(a, &a_scalar, &pa));
  MX_TRY(operand(b, &b_scalar, &pb));

  int32_t sizes[MX_MAX_DIM];
  uint32_t dim = 0;
  MX_TRY(mx_broadcast_shape(a->sizes, a->dim, b->sizes, b->dim, sizes, &dim));
  MX_TRY(mx_check_sizes(out, sizes, dim));
  uint32_t as[MX_MAX_DIM], bs[MX_MAX_DIM];
  MX_TRY(mx_broadcast_strides(a->sizes, a->dim, sizes, dim, as));
  MX_TRY(mx_broadcast_strides(b->sizes, b->dim, sizes, dim, bs));
  if (out->numel == 0) {
    return MX_OK;
  }

  /* Walk the output row by row (rows = its last dim); idx/offsets advance like an odometer. */
  uint32_t inner = dim == 0 ? 1u : (uint32_t)sizes[dim - 1];
  uint32_t sa = dim == 0 ? 0u : as[dim - 1], sb = dim == 0 ? 0u : bs[dim - 1];
  uint32_t rows = out->numel / inner;
  uint32_t idx[MX_MAX_DIM] = {0};
  uint32_t a_off = 0, b_off = 0;
  float *po = (float *)out->data;
  for (uint32_t r = 0; r < rows; ++r) {
    row(op, (float)alpha, pa + a_off, sa, pb + b_off, sb, po + (size_t)r * inner, inner);
    mx_odometer_step(idx, sizes, dim > 0 ? dim - 1 : 0, as, &a_off, bs, &b_off);
  }
  return MX_OK;
}
