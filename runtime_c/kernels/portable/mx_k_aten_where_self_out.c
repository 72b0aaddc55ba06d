/* aten::where.self_out, any dtype: (condition, self, other, out, ret). out = condition ? self : other,
 * the three broadcast together; condition bool, self and other of out's dtype. */
#include <string.h>

#include "util/mx_args.h"
#include "util/mx_broadcast.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_where_##name

mx_arg_error mx_k_aten_where_self_out_check(mx_value *const *args) {
  const mx_tensor *c = mx_arg_tensor(args, A(condition)), *a = mx_arg_tensor(args, A(self));
  const mx_tensor *b = mx_arg_tensor(args, A(other)), *out = mx_arg_tensor(args, A(out));
  MX_TRY(mx_check_arg_tensor(args, A(condition), MX_DTYPE_BOOL));
  MX_CHECK(A(self), mx_check_contiguous(a));
  MX_CHECK(A(other), mx_check_contiguous(b));
  MX_CHECK(A(out), mx_check_contiguous(out));
  MX_REFUSE_IF(a->dtype != out->dtype, A(self), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(b->dtype != out->dtype, A(other), MX_ERR_BAD_DTYPE);
  int32_t ab[MX_MAX_DIM], sizes[MX_MAX_DIM];
  uint32_t ab_dim = 0, dim = 0;
  MX_CHECK(A(other), mx_broadcast_shape(a->sizes, a->dim, b->sizes, b->dim, ab, &ab_dim));
  MX_CHECK(A(condition), mx_broadcast_shape(c->sizes, c->dim, ab, ab_dim, sizes, &dim));
  MX_CHECK(A(out), mx_check_sizes(out, sizes, dim));
  return MX_OK;
}

mx_error mx_k_aten_where_self_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *c = mx_arg_tensor(args, A(condition)), *a = mx_arg_tensor(args, A(self));
  const mx_tensor *b = mx_arg_tensor(args, A(other)), *out = mx_arg_tensor(args, A(out));
  const uint32_t dim = out->dim;
  uint32_t cs[MX_MAX_DIM], as[MX_MAX_DIM], bs[MX_MAX_DIM];
  /* out's shape is the broadcast of the three (checked at load), so the strides cannot fail */
  (void)mx_broadcast_strides(c->sizes, c->dim, out->sizes, dim, cs);
  (void)mx_broadcast_strides(a->sizes, a->dim, out->sizes, dim, as);
  (void)mx_broadcast_strides(b->sizes, b->dim, out->sizes, dim, bs);
  const size_t elem = mx_dtype_size(out->dtype);
  const uint8_t *cond = (const uint8_t *)c->data, *pa = (const uint8_t *)a->data, *pb = (const uint8_t *)b->data;
  uint8_t *po = (uint8_t *)out->data;
  uint32_t idx[MX_MAX_DIM] = {0};
  uint32_t co = 0, ao = 0, bo = 0;
  for (uint32_t i = 0; i < out->numel; ++i) {
    memcpy(po + (size_t)i * elem, cond[co] ? pa + (size_t)ao * elem : pb + (size_t)bo * elem, elem);
    /* the odometer of mx_odometer.h, with three offsets following it */
    for (uint32_t d = dim; d-- > 0;) {
      co += cs[d];
      ao += as[d];
      bo += bs[d];
      if (++idx[d] < (uint32_t)out->sizes[d]) {
        break;
      }
      co -= cs[d] * (uint32_t)out->sizes[d];
      ao -= as[d] * (uint32_t)out->sizes[d];
      bo -= bs[d] * (uint32_t)out->sizes[d];
      idx[d] = 0;
    }
  }
  return MX_OK;
}
