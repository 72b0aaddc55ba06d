/* aten::clamp.Tensor_out for float32: (self, min?, max?, out, ret), torch.clamp with tensor bounds. self, min and
 * max broadcast together to out's shape; like clamp.out, min applies first (min > max gives max) and a NaN in self
 * passes through. self and out may also share any dim order, with bounds of their shape and order or of one
 * element (no broadcasting then). */
#include "util/mx_args.h"
#include "util/mx_broadcast.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_clamp_Tensor_##name

/* self and out share a non-contiguous dim order: each bound then has their shape and order, or one element. The
 * loop below reads every tensor at out's memory index (strides 0 for a one-element bound), which holds when all
 * lay out alike; any other mix is refused as a non-contiguous self always was. */
static mx_arg_error check_shared_order(mx_value *const *args) {
  const mx_tensor *self = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  MX_CHECK(A(self), mx_check_dtype(self, MX_DTYPE_F32));
  MX_CHECK(A(out), mx_check_dtype(out, MX_DTYPE_F32));
  MX_REFUSE_IF(mx_arg_none(args, A(min)) && mx_arg_none(args, A(max)), A(max), MX_ERR_BAD_ARG_VALUE);
  MX_CHECK(A(out), mx_check_sizes(out, self->sizes, self->dim));
  for (uint32_t j = A(min); j <= A(max); ++j) {
    const mx_tensor *bound = mx_arg_opt_tensor(args, j);
    if (bound != NULL) {
      MX_CHECK(j, mx_check_dtype(bound, MX_DTYPE_F32));
      const bool one = bound->numel == 1;
      MX_REFUSE_IF(!one && !(mx_same_dim_order(bound, out) && mx_same_shape(bound, out)), A(self),
                   MX_ERR_BAD_ARG_VALUE);
      /* a bound of higher rank broadcasts out to it, as on the contiguous path */
      MX_REFUSE_IF(one && bound->dim > out->dim, A(out), MX_ERR_BAD_SHAPE);
    }
  }
  return MX_OK;
}

mx_arg_error mx_k_aten_clamp_Tensor_out_check(mx_value *const *args) {
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  if (!mx_is_contiguous(out) && mx_same_dim_order(mx_arg_tensor(args, A(self)), out)) {
    return check_shared_order(args);
  }
  MX_TRY(mx_check_arg_tensor(args, A(self), MX_DTYPE_F32));
  MX_TRY(mx_check_arg_tensor(args, A(out), MX_DTYPE_F32));
  /* torch: at least one of min and max */
  MX_REFUSE_IF(mx_arg_none(args, A(min)) && mx_arg_none(args, A(max)), A(max), MX_ERR_BAD_ARG_VALUE);
  const mx_tensor *self = mx_arg_tensor(args, A(self));
  int32_t sizes[MX_MAX_DIM];
  uint32_t dim = self->dim;
  for (uint32_t d = 0; d < dim; ++d) {
    sizes[d] = self->sizes[d];
  }
  for (uint32_t j = A(min); j <= A(max); ++j) {
    const mx_tensor *bound = mx_arg_opt_tensor(args, j);
    if (bound != NULL) {
      MX_TRY(mx_check_arg_tensor(args, j, MX_DTYPE_F32));
      int32_t both[MX_MAX_DIM];
      uint32_t both_dim = 0;
      MX_CHECK(j, mx_broadcast_shape(sizes, dim, bound->sizes, bound->dim, both, &both_dim));
      for (uint32_t d = 0; d < both_dim; ++d) {
        sizes[d] = both[d];
      }
      dim = both_dim;
    }
  }
  MX_CHECK(A(out), mx_check_sizes(out, sizes, dim));
  return MX_OK;
}

/* Element strides of each operand over out's shape (0 where it repeats): checked at load, so they cannot fail. */
static void strides_of(const mx_tensor *t, const mx_tensor *out, uint32_t *strides) {
  (void)mx_broadcast_strides(t->sizes, t->dim, out->sizes, out->dim, strides);
}

mx_error mx_k_aten_clamp_Tensor_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *self = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const mx_tensor *lo_t = mx_arg_opt_tensor(args, A(min)), *hi_t = mx_arg_opt_tensor(args, A(max));
  uint32_t s_x[MX_MAX_DIM] = {0}, s_lo[MX_MAX_DIM] = {0}, s_hi[MX_MAX_DIM] = {0};
  strides_of(self, out, s_x);
  if (lo_t != NULL) {
    strides_of(lo_t, out, s_lo);
  }
  if (hi_t != NULL) {
    strides_of(hi_t, out, s_hi);
  }
  const float *x = (const float *)self->data;
  const float *lo = lo_t != NULL ? (const float *)lo_t->data : NULL;
  const float *hi = hi_t != NULL ? (const float *)hi_t->data : NULL;
  float *y = (float *)out->data;
  for (uint32_t i = 0; i < out->numel; ++i) {
    /* the operands' offsets from out's index, digit by digit (last dim fastest) */
    uint32_t rest = i, o_x = 0, o_lo = 0, o_hi = 0;
    for (uint32_t d = out->dim; d-- > 0;) {
      const uint32_t digit = rest % (uint32_t)out->sizes[d];
      rest /= (uint32_t)out->sizes[d];
      o_x += digit * s_x[d];
      o_lo += digit * s_lo[d];
      o_hi += digit * s_hi[d];
    }
    float v = x[o_x];
    if (lo != NULL && v < lo[o_lo]) {
      v = lo[o_lo];
    }
    if (hi != NULL && v > hi[o_hi]) {
      v = hi[o_hi];
    }
    y[i] = v;
  }
  return MX_OK;
}
