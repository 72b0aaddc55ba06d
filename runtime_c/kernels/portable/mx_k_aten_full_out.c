/* aten::full.out, any dtype but float16: (size, fill_value, out, ret). Body: util/mx_fill.c. */
#include "util/mx_args.h"
#include "util/mx_fill.h"
#include "util/mx_tensor_util.h"

#define A(name) MX_ARG_aten_full_##name

mx_arg_error mx_k_aten_full_out_check(mx_value *const *args) {
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  const mx_int_list size = *mx_arg_int_list(args, A(size));
  MX_CHECK(A(out), mx_check_contiguous(out));
  MX_CHECK(A(out), mx_fill_check(out));
  MX_REFUSE_IF(size.len > MX_MAX_DIM, A(size), MX_ERR_BAD_ARG_VALUE);
  int32_t sizes[MX_MAX_DIM];
  for (uint32_t d = 0; d < size.len; ++d) {
    MX_REFUSE_IF(size.items[d] < 0 || size.items[d] > INT32_MAX, A(size), MX_ERR_BAD_ARG_VALUE);
    sizes[d] = (int32_t)size.items[d];
  }
  MX_CHECK(A(out), mx_check_sizes(out, sizes, size.len));
  return MX_OK;
}

mx_error mx_k_aten_full_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  mx_fill(mx_arg_tensor(args, A(out)), args[A(fill_value)]);
  return MX_OK;
}
