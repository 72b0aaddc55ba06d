#include "mx_compare.h"

#include "mx_args.h"
#include "mx_broadcast.h"
#include "mx_int_float.h"
#include "mx_odometer.h"
#include "mx_tensor_util.h"

/* The twelve kernels read eq.Scalar_out's names. */
#define SAME_AS_EQ(op, form)                                                             \
  _Static_assert(MX_ARG_aten_##op##_##form##_self == MX_ARG_aten_eq_Scalar_self &&       \
                     MX_ARG_aten_##op##_##form##_other == MX_ARG_aten_eq_Scalar_other && \
                     MX_ARG_aten_##op##_##form##_out == MX_ARG_aten_eq_Scalar_out,       \
                 #op "." #form "'s arguments sit where eq.Scalar's do")
SAME_AS_EQ(eq, Tensor);
SAME_AS_EQ(ne, Scalar);
SAME_AS_EQ(ne, Tensor);
SAME_AS_EQ(gt, Scalar);
SAME_AS_EQ(gt, Tensor);
SAME_AS_EQ(ge, Scalar);
SAME_AS_EQ(ge, Tensor);
SAME_AS_EQ(lt, Scalar);
SAME_AS_EQ(lt, Tensor);
SAME_AS_EQ(le, Scalar);
SAME_AS_EQ(le, Tensor);

#define SELF MX_ARG_aten_eq_Scalar_self
#define OTHER MX_ARG_aten_eq_Scalar_other
#define OUT MX_ARG_aten_eq_Scalar_out

static bool is_integer(uint8_t dtype) {
  return dtype == MX_DTYPE_U8 || dtype == MX_DTYPE_I8 || dtype == MX_DTYPE_I16 || dtype == MX_DTYPE_I32 ||
         dtype == MX_DTYPE_I64 || dtype == MX_DTYPE_BOOL;
}

static mx_error check_elementwise(const mx_tensor *t) {
  MX_TRY(mx_check_contiguous(t));
  return t->dtype == MX_DTYPE_F32 || is_integer(t->dtype) ? MX_OK : MX_ERR_BAD_DTYPE;
}

mx_arg_error mx_compare_check(mx_value *const *args, bool tensor_other) {
  const mx_tensor *a = mx_arg_tensor(args, SELF), *out = mx_arg_tensor(args, OUT);
  MX_CHECK(SELF, check_elementwise(a));
  MX_TRY(mx_check_arg_tensor(args, OUT, MX_DTYPE_BOOL));
  if (!tensor_other) {
    MX_REFUSE_IF(!mx_same_shape(a, out), OUT, MX_ERR_BAD_SHAPE);
    return MX_OK;
  }
  const mx_tensor *b = mx_arg_tensor(args, OTHER);
  if (!(b->numel == 1 && b->dtype != MX_DTYPE_F16)) { /* one element of any numeric dtype: read as it is */
    MX_CHECK(OTHER, check_elementwise(b));
  }
  /* torch would first cast one integer operand to the other's dtype (wrapping values that do not fit, by
   * rules that depend on which is 0-dim): integers of two dtypes are compared only beside a bool */
  MX_REFUSE_IF(is_integer(a->dtype) && is_integer(b->dtype) && a->dtype != b->dtype && a->dtype != MX_DTYPE_BOOL &&
                   b->dtype != MX_DTYPE_BOOL,
               OTHER, MX_ERR_BAD_DTYPE);
  int32_t sizes[MX_MAX_DIM];
  uint32_t dim = 0;
  MX_CHECK(OTHER, mx_broadcast_shape(a->sizes, a->dim, b->sizes, b->dim, sizes, &dim));
  MX_CHECK(OUT, mx_check_sizes(out, sizes, dim));
  return MX_OK;
}

static int64_t int_at(const mx_tensor *t, uint32_t i) {
  switch (t->dtype) {
    case MX_DTYPE_U8:
    case MX_DTYPE_BOOL: return ((const uint8_t *)t->data)[i];
    case MX_DTYPE_I8: return ((const int8_t *)t->data)[i];
    case MX_DTYPE_I16: return ((const int16_t *)t->data)[i];
    case MX_DTYPE_I32: return ((const int32_t *)t->data)[i];
    default: return ((const int64_t *)t->data)[i];
  }
}

/* An element as float32, as torch's promotion casts it (a one-element float64 other included). */
static float float_at(const mx_tensor *t, uint32_t i) {
  switch (t->dtype) {
    case MX_DTYPE_F32: return ((const float *)t->data)[i];
    case MX_DTYPE_F64: return (float)((const double *)t->data)[i];
    default: return mx_i64_to_f32(int_at(t, i));
  }
}

/* x op y as -1/0/1 ordering with NaN unordered: every comparison but != is false then. */
static inline bool holds(mx_cmp op, bool unordered, int order) {
  if (unordered) {
    return op == MX_CMP_NE;
  }
  switch (op) {
    case MX_CMP_EQ: return order == 0;
    case MX_CMP_NE: return order != 0;
    case MX_CMP_GT: return order > 0;
    case MX_CMP_GE: return order >= 0;
    case MX_CMP_LT: return order < 0;
    default: return order <= 0;
  }
}

static inline bool holds_f32(mx_cmp op, float a, float b) {
  return holds(op, a != a || b != b, a < b ? -1 : (a > b ? 1 : 0));
}

static inline bool holds_i64(mx_cmp op, int64_t a, int64_t b) { return holds(op, false, a < b ? -1 : (a > b ? 1 : 0)); }

void mx_compare(mx_value *const *args, mx_cmp op, bool tensor_other) {
  const mx_tensor *a = mx_arg_tensor(args, SELF), *out = mx_arg_tensor(args, OUT);
  uint8_t *y = (uint8_t *)out->data;
  if (!tensor_other) {
    const mx_value *s = args[OTHER];
    if (is_integer(a->dtype) && s->tag != MX_TAG_DOUBLE) {
      const int64_t b = s->tag == MX_TAG_BOOL ? (int64_t)s->u.b : mx_value_int(s);
      for (uint32_t i = 0; i < out->numel; ++i) {
        y[i] = holds_i64(op, int_at(a, i), b);
      }
      return;
    }
    const float b = (float)mx_arg_scalar(args, OTHER);
    for (uint32_t i = 0; i < out->numel; ++i) {
      y[i] = holds_f32(op, float_at(a, i), b);
    }
    return;
  }
  const mx_tensor *b = mx_arg_tensor(args, OTHER);
  const bool integers = is_integer(a->dtype) && is_integer(b->dtype);
  uint32_t as[MX_MAX_DIM], bs[MX_MAX_DIM];
  /* out's shape is the broadcast shape (checked at load), so the strides cannot fail */
  (void)mx_broadcast_strides(a->sizes, a->dim, out->sizes, out->dim, as);
  (void)mx_broadcast_strides(b->sizes, b->dim, out->sizes, out->dim, bs);
  uint32_t idx[MX_MAX_DIM] = {0};
  uint32_t ao = 0, bo = 0;
  for (uint32_t i = 0; i < out->numel; ++i) {
    y[i] = integers ? holds_i64(op, int_at(a, ao), int_at(b, bo)) : holds_f32(op, float_at(a, ao), float_at(b, bo));
    mx_odometer_step(idx, out->sizes, out->dim, as, &ao, bs, &bo);
  }
}
