/* aten::permute_copy.out, any dtype and rank: (self, dims, out, ret); out dim i is self dim dims[i]. */
#include "util/mx_args.h"
#include "util/mx_copy_args.h"
#include "util/mx_strided_copy.h"
#include "util/mx_tensor_util.h"

mx_error mx_k_aten_permute_copy_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  mx_tensor *in = NULL, *out = NULL;
  const int64_t *dims = NULL;
  uint32_t len = 0;
  MX_TRY(mx_copy_args(args, nargs, &in, &dims, &len, &out));
  uint32_t r = in->dim;
  if (len != r) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  uint32_t in_strides[MX_MAX_DIM], src_strides[MX_MAX_DIM], dst_strides[MX_MAX_DIM];
  int32_t sizes[MX_MAX_DIM];
  bool seen[MX_MAX_DIM] = {false};
  uint32_t run = 1;
  for (uint32_t d = r; d-- > 0;) {
    in_strides[d] = run;
    dst_strides[d] = 0; /* filled below once out's sizes are known */
    run *= (uint32_t)in->sizes[d];
  }
  for (uint32_t i = 0; i < r; ++i) {
    uint32_t d = 0;
    MX_TRY(mx_wrap_dim(dims[i], r, &d));
    if (seen[d]) {
      return MX_ERR_BAD_ARG_VALUE; /* not a permutation */
    }
    seen[d] = true;
    sizes[i] = in->sizes[d];
    src_strides[i] = in_strides[d];
  }
  MX_TRY(mx_check_sizes(out, sizes, r));
  run = 1;
  for (uint32_t d = r; d-- > 0;) {
    dst_strides[d] = run;
    run *= (uint32_t)sizes[d];
  }
  mx_strided_copy(out->data, dst_strides, in->data, src_strides, sizes, r, mx_dtype_size(out->dtype));
  return MX_OK;
}
