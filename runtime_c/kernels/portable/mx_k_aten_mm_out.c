/* aten::mm.out for float32: (self [M, K], mat2 [K, N], out [M, N], ret). */
#include "util/mx_args.h"
#include "util/mx_matmul_f32.h"
#include "util/mx_mm_args.h"
#include "util/mx_tensor_util.h"

mx_error mx_k_aten_mm_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  mx_tensor *a = NULL, *b = NULL, *out = NULL;
  MX_TRY(mx_mm_args(args, nargs, &a, &b, &out));
  if (a->dim != 2 || b->dim != 2 || a->sizes[1] != b->sizes[0]) {
    return MX_ERR_BAD_SHAPE;
  }
  int32_t sizes[2] = {a->sizes[0], b->sizes[1]};
  MX_TRY(mx_check_sizes(out, sizes, 2));
  mx_matmul_f32((const float *)a->data, (const float *)b->data, (float *)out->data, (uint32_t)a->sizes[0],
                (uint32_t)a->sizes[1], (uint32_t)b->sizes[1]);
  return MX_OK;
}
