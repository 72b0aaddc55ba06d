/* aten::expand_copy.out, any dtype: (self, size, implicit, out, ret). size aligns with self's trailing dims;
 * -1 keeps self's size, a size-1 dim of self repeats, new leading dims repeat the whole of self. */
#include "util/mx_args.h"
#include "util/mx_broadcast.h"
#include "util/mx_strided_copy.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_expand_copy_##name

mx_arg_error mx_k_aten_expand_copy_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  const mx_int_list size = *mx_arg_int_list(args, A(size));
  MX_CHECK(A(self), mx_check_contiguous(in));
  MX_CHECK(A(out), mx_check_contiguous(out));
  MX_REFUSE_IF(in->dtype != out->dtype, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(size.len < in->dim || size.len > MX_MAX_DIM, A(size), MX_ERR_BAD_ARG_VALUE);
  const uint32_t lead = size.len - in->dim;
  int32_t sizes[MX_MAX_DIM];
  for (uint32_t d = 0; d < size.len; ++d) {
    const int64_t s = size.items[d];
    if (d < lead) {
      MX_REFUSE_IF(s < 0 || s > INT32_MAX, A(size), MX_ERR_BAD_ARG_VALUE); /* a new dim has no size to keep */
      sizes[d] = (int32_t)s;
      continue;
    }
    const int32_t have = in->sizes[d - lead];
    MX_REFUSE_IF(s != -1 && s != have && have != 1, A(size), MX_ERR_BAD_ARG_VALUE);
    MX_REFUSE_IF(s < -1 || s > INT32_MAX, A(size), MX_ERR_BAD_ARG_VALUE);
    sizes[d] = s == -1 ? have : (int32_t)s;
  }
  MX_CHECK(A(out), mx_check_sizes(out, sizes, size.len));
  return MX_OK;
}

mx_error mx_k_aten_expand_copy_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(self)), *out = mx_arg_tensor(args, A(out));
  if (out->numel == 0) {
    return MX_OK;
  }
  uint32_t src_strides[MX_MAX_DIM], dst_strides[MX_MAX_DIM];
  /* out's shape is self broadcast (checked at load), so the strides cannot fail */
  (void)mx_broadcast_strides(in->sizes, in->dim, out->sizes, out->dim, src_strides);
  uint32_t run = 1;
  for (uint32_t d = out->dim; d-- > 0;) {
    dst_strides[d] = run;
    run *= (uint32_t)out->sizes[d];
  }
  mx_strided_copy(out->data, dst_strides, in->data, src_strides, out->sizes, out->dim, mx_dtype_size(in->dtype));
  return MX_OK;
}
