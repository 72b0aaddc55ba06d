/* aten::permute_copy.out, any dtype and rank: (self, dims, out, ret); out dim i is self dim dims[i]. */
#include "util/mx_args.h"
#include "util/mx_copy_args.h"
#include "util/mx_strided_copy.h"
#include "util/mx_tensor_util.h"

mx_arg_error mx_k_aten_permute_copy_out_check(mx_value *const *args) {
  MX_TRY(mx_copy_check(args));
  const mx_tensor *in = mx_arg_tensor(args, MX_ARG_aten_permute_copy_self);
  const mx_int_list dims = *mx_arg_int_list(args, MX_ARG_aten_permute_copy_dims);
  const uint32_t r = in->dim;
  MX_REFUSE_IF(dims.len != r, MX_ARG_aten_permute_copy_dims, MX_ERR_BAD_ARG_VALUE);
  int32_t sizes[MX_MAX_DIM];
  bool seen[MX_MAX_DIM] = {false};
  for (uint32_t i = 0; i < r; ++i) {
    uint32_t d = 0;
    MX_CHECK(MX_ARG_aten_permute_copy_dims, mx_wrap_dim(dims.items[i], r, &d));
    MX_REFUSE_IF(seen[d], MX_ARG_aten_permute_copy_dims, MX_ERR_BAD_ARG_VALUE); /* not a permutation */
    seen[d] = true;
    sizes[i] = in->sizes[d];
  }
  MX_CHECK(MX_ARG_aten_permute_copy_out, mx_check_sizes(mx_arg_tensor(args, MX_ARG_aten_permute_copy_out), sizes, r));
  return MX_OK;
}

mx_error mx_k_aten_permute_copy_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, MX_ARG_aten_permute_copy_self);
  const mx_tensor *out = mx_arg_tensor(args, MX_ARG_aten_permute_copy_out);
  const mx_int_list dims = *mx_arg_int_list(args, MX_ARG_aten_permute_copy_dims);
  const uint32_t r = in->dim;
  uint32_t in_strides[MX_MAX_DIM], src_strides[MX_MAX_DIM], dst_strides[MX_MAX_DIM];
  uint32_t run = 1;
  for (uint32_t d = r; d-- > 0;) {
    in_strides[d] = run;
    run *= (uint32_t)in->sizes[d];
  }
  run = 1;
  for (uint32_t i = r; i-- > 0;) {
    src_strides[i] = in_strides[mx_wrapped_dim(dims.items[i], r)];
    dst_strides[i] = run;
    run *= (uint32_t)out->sizes[i];
  }
  mx_strided_copy(out->data, dst_strides, in->data, src_strides, out->sizes, r, mx_dtype_size(out->dtype));
  return MX_OK;
}
