#include "mx_binary_f32.h"

#include "mx_args.h"
#include "mx_broadcast.h"
#include "mx_odometer.h"
#include "mx_tensor_util.h"

/* add and sub share a layout, and so do mul and div: the body reads add's and mul's names. */
_Static_assert(MX_ARG_aten_sub_self == MX_ARG_aten_add_self && MX_ARG_aten_sub_other == MX_ARG_aten_add_other &&
                   MX_ARG_aten_sub_alpha == MX_ARG_aten_add_alpha && MX_ARG_aten_sub_out == MX_ARG_aten_add_out,
               "sub's arguments sit where add's do");
_Static_assert(MX_ARG_aten_div_self == MX_ARG_aten_mul_self && MX_ARG_aten_div_other == MX_ARG_aten_mul_other &&
                   MX_ARG_aten_div_out == MX_ARG_aten_mul_out,
               "div's arguments sit where mul's do");
_Static_assert(MX_ARG_aten_minimum_self == MX_ARG_aten_mul_self && MX_ARG_aten_minimum_other == MX_ARG_aten_mul_other &&
                   MX_ARG_aten_minimum_out == MX_ARG_aten_mul_out && MX_ARG_aten_maximum_self == MX_ARG_aten_mul_self &&
                   MX_ARG_aten_maximum_other == MX_ARG_aten_mul_other && MX_ARG_aten_maximum_out == MX_ARG_aten_mul_out,
               "minimum's and maximum's arguments sit where mul's do");
_Static_assert(MX_ARG_aten_add_self == MX_ARG_aten_mul_self && MX_ARG_aten_add_other == MX_ARG_aten_mul_other,
               "add's and mul's operands sit alike");

static uint32_t out_index(mx_binop op) {
  return op == MX_BINOP_ADD || op == MX_BINOP_SUB ? MX_ARG_aten_add_out : MX_ARG_aten_mul_out;
}

/* A contiguous or channels-last float32 tensor, or a one-element tensor of another dtype (read as a float). */
static mx_error check_operand(const mx_tensor *t) {
  if (t->dtype == MX_DTYPE_F32) {
    return mx_check_tensor_or_channels_last(t, MX_DTYPE_F32);
  }
  return t->numel == 1 && t->dtype != MX_DTYPE_F16 ? MX_OK : MX_ERR_BAD_DTYPE;
}

mx_arg_error mx_binary_f32_check(mx_value *const *args, mx_binop op) {
  const uint32_t out_i = out_index(op);
  const mx_tensor *a = mx_arg_tensor(args, MX_ARG_aten_add_self), *b = mx_arg_tensor(args, MX_ARG_aten_add_other);
  const mx_tensor *out = mx_arg_tensor(args, out_i);
  MX_CHECK(out_i, mx_check_tensor_or_channels_last(out, MX_DTYPE_F32));
  /* torch refuses to subtract booleans */
  MX_REFUSE_IF(op == MX_BINOP_SUB && a->dtype == MX_DTYPE_BOOL, MX_ARG_aten_add_self, MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(op == MX_BINOP_SUB && b->dtype == MX_DTYPE_BOOL, MX_ARG_aten_add_other, MX_ERR_BAD_DTYPE);
  MX_CHECK(MX_ARG_aten_add_self, check_operand(a));
  MX_CHECK(MX_ARG_aten_add_other, check_operand(b));
  int32_t sizes[MX_MAX_DIM];
  uint32_t dim = 0;
  MX_CHECK(MX_ARG_aten_add_other, mx_broadcast_shape(a->sizes, a->dim, b->sizes, b->dim, sizes, &dim));
  MX_CHECK(out_i, mx_check_sizes(out, sizes, dim));
  return MX_OK;
}

static const float *operand(const mx_tensor *t, float *scalar) {
  if (t->dtype == MX_DTYPE_F32) {
    return (const float *)t->data;
  }
  *scalar = mx_tensor_item_as_float(t);
  return scalar;
}

/* torch.minimum/maximum: a NaN in either operand is the result. */
static inline float pick(float a, float b, bool larger) {
  if (a != a || b != b) {
    return a != a ? a : b;
  }
  return (larger ? a > b : a < b) ? a : b;
}

static void row(mx_binop op, float alpha, const float *a, uint32_t sa, const float *b, uint32_t sb, float *o,
                uint32_t n) {
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
    case MX_BINOP_MIN:
      for (uint32_t i = 0; i < n; ++i) o[i] = pick(a[i * sa], b[i * sb], false);
      break;
    case MX_BINOP_MAX:
      for (uint32_t i = 0; i < n; ++i) o[i] = pick(a[i * sa], b[i * sb], true);
      break;
  }
}

/* Element strides reading t (in its own dim order) at every index of out's shape: 0 along the dims it repeats. */
static void layout_strides(const mx_tensor *t, const mx_tensor *out, uint32_t *strides) {
  const uint32_t lead = out->dim - t->dim; /* t's dims align with out's last ones */
  mx_dim_order_strides(t, strides + lead);
  for (uint32_t d = 0; d < out->dim; ++d) {
    /* a dim of size 1 repeats (stride 0) whichever its order */
    if (d < lead || t->sizes[d - lead] == 1) {
      strides[d] = 0;
    }
  }
}

/* Some tensor is channels-last: walk out in its own memory order (out[i] is written i-th, a forward sweep as the
 * elementwise overlap rule needs) with each operand's strides taken along. Dims that are size 1, or that every
 * tensor walks as one run with the next, merge, so operands of out's shape and order read as one row. */
static void strided(mx_binop op, float alpha, const float *pa, const mx_tensor *a, const float *pb, const mx_tensor *b,
                    const mx_tensor *out) {
  uint32_t as[MX_MAX_DIM], bs[MX_MAX_DIM];
  layout_strides(a, out, as);
  layout_strides(b, out, bs);
  int32_t sizes[MX_MAX_DIM];
  uint32_t sa[MX_MAX_DIM], sb[MX_MAX_DIM];
  uint32_t dim = 0;
  for (uint32_t k = 0; k < out->dim; ++k) {
    const uint32_t d = out->dim_order[k];
    const int32_t n = out->sizes[d];
    if (n == 1) {
      continue;
    }
    if (dim > 0 && sa[dim - 1] == as[d] * (uint32_t)n && sb[dim - 1] == bs[d] * (uint32_t)n) {
      sizes[dim - 1] *= n;
      sa[dim - 1] = as[d];
      sb[dim - 1] = bs[d];
      continue;
    }
    sizes[dim] = n;
    sa[dim] = as[d];
    sb[dim] = bs[d];
    ++dim;
  }
  const uint32_t inner = dim == 0 ? 1u : (uint32_t)sizes[dim - 1];
  const uint32_t ia = dim == 0 ? 0u : sa[dim - 1], ib = dim == 0 ? 0u : sb[dim - 1];
  const uint32_t rows = out->numel / inner;
  uint32_t idx[MX_MAX_DIM] = {0};
  uint32_t a_off = 0, b_off = 0;
  float *po = (float *)out->data;
  for (uint32_t r = 0; r < rows; ++r) {
    row(op, alpha, pa + a_off, ia, pb + b_off, ib, po + (size_t)r * inner, inner);
    mx_odometer_step(idx, sizes, dim > 0 ? dim - 1 : 0, sa, &a_off, sb, &b_off);
  }
}

/* Contiguous, or one element (a scalar operand of another dtype may come in any dim order). */
static bool plain(const mx_tensor *t) { return t->numel == 1 || mx_is_contiguous(t); }

void mx_binary_f32(mx_value *const *args, mx_binop op) {
  const mx_tensor *a = mx_arg_tensor(args, MX_ARG_aten_add_self), *b = mx_arg_tensor(args, MX_ARG_aten_add_other);
  const mx_tensor *out = mx_arg_tensor(args, out_index(op));
  const bool has_alpha = op == MX_BINOP_ADD || op == MX_BINOP_SUB;
  const float alpha = has_alpha ? (float)mx_arg_scalar(args, MX_ARG_aten_add_alpha) : 1.0f;
  if (out->numel == 0) {
    return;
  }
  float a_scalar = 0.0f, b_scalar = 0.0f;
  const float *pa = operand(a, &a_scalar), *pb = operand(b, &b_scalar);
  if (!plain(a) || !plain(b) || !mx_is_contiguous(out)) {
    strided(op, alpha, pa, a, pb, b, out);
    return;
  }
  /* out's shape is the broadcast shape (checked at load), so the strides cannot fail */
  const int32_t *sizes = out->sizes;
  const uint32_t dim = out->dim;
  uint32_t as[MX_MAX_DIM], bs[MX_MAX_DIM];
  (void)mx_broadcast_strides(a->sizes, a->dim, sizes, dim, as);
  (void)mx_broadcast_strides(b->sizes, b->dim, sizes, dim, bs);

  /* Walk the output row by row (rows = its last dim); idx/offsets advance like an odometer. */
  uint32_t inner = dim == 0 ? 1u : (uint32_t)sizes[dim - 1];
  uint32_t sa = dim == 0 ? 0u : as[dim - 1], sb = dim == 0 ? 0u : bs[dim - 1];
  uint32_t rows = out->numel / inner;
  uint32_t idx[MX_MAX_DIM] = {0};
  uint32_t a_off = 0, b_off = 0;
  float *po = (float *)out->data;
  for (uint32_t r = 0; r < rows; ++r) {
    row(op, alpha, pa + a_off, sa, pb + b_off, sb, po + (size_t)r * inner, inner);
    mx_odometer_step(idx, sizes, dim > 0 ? dim - 1 : 0, as, &a_off, bs, &b_off);
  }
}
