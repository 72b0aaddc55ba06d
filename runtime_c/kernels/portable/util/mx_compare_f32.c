#include "mx_compare_f32.h"

#include "mx_args.h"
#include "mx_broadcast.h"
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

static mx_error check_operand(const mx_tensor *t) {
  if (t->dtype == MX_DTYPE_F32) {
    return mx_check_tensor(t, MX_DTYPE_F32);
  }
  return t->numel == 1 && t->dtype != MX_DTYPE_F16 ? MX_OK : MX_ERR_BAD_DTYPE;
}

mx_arg_error mx_compare_f32_check(mx_value *const *args, bool tensor_other) {
  const mx_tensor *a = mx_arg_tensor(args, SELF), *out = mx_arg_tensor(args, OUT);
  MX_TRY(mx_check_arg_tensor(args, SELF, MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, OUT, MX_DTYPE_BOOL));
  if (!tensor_other) {
    MX_REFUSE_IF(!mx_same_shape(a, out), OUT, MX_ERR_BAD_SHAPE);
    return MX_OK;
  }
  const mx_tensor *b = mx_arg_tensor(args, OTHER);
  MX_CHECK(OTHER, check_operand(b));
  int32_t sizes[MX_MAX_DIM];
  uint32_t dim = 0;
  MX_CHECK(OTHER, mx_broadcast_shape(a->sizes, a->dim, b->sizes, b->dim, sizes, &dim));
  MX_CHECK(OUT, mx_check_sizes(out, sizes, dim));
  return MX_OK;
}

static inline bool holds(mx_cmp op, float a, float b) {
  switch (op) {
    case MX_CMP_EQ: return a == b;
    case MX_CMP_NE: return a != b;
    case MX_CMP_GT: return a > b;
    case MX_CMP_GE: return a >= b;
    case MX_CMP_LT: return a < b;
    default: return a <= b;
  }
}

void mx_compare_f32(mx_value *const *args, mx_cmp op, bool tensor_other) {
  const mx_tensor *a = mx_arg_tensor(args, SELF), *out = mx_arg_tensor(args, OUT);
  const float *pa = (const float *)a->data;
  uint8_t *y = (uint8_t *)out->data;
  if (!tensor_other) {
    const float b = (float)mx_arg_scalar(args, OTHER);
    for (uint32_t i = 0; i < out->numel; ++i) {
      y[i] = holds(op, pa[i], b);
    }
    return;
  }
  const mx_tensor *b = mx_arg_tensor(args, OTHER);
  float b_item = 0.0f;
  const float *pb = b->dtype == MX_DTYPE_F32 ? (const float *)b->data : &b_item;
  if (b->dtype != MX_DTYPE_F32) {
    b_item = mx_tensor_item_as_float(b);
  }
  uint32_t as[MX_MAX_DIM], bs[MX_MAX_DIM];
  /* out's shape is the broadcast shape (checked at load), so the strides cannot fail */
  (void)mx_broadcast_strides(a->sizes, a->dim, out->sizes, out->dim, as);
  (void)mx_broadcast_strides(b->sizes, b->dim, out->sizes, out->dim, bs);
  uint32_t idx[MX_MAX_DIM] = {0};
  uint32_t ao = 0, bo = 0;
  for (uint32_t i = 0; i < out->numel; ++i) {
    y[i] = holds(op, pa[ao], pb[bo]);
    mx_odometer_step(idx, out->sizes, out->dim, as, &ao, bs, &bo);
  }
}
