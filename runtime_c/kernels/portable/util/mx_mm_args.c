#include "mx_mm_args.h"

#include "mx_args.h"
#include "mx_tensor_util.h"

#define A(name) MX_ARG_aten_mm_##name

_Static_assert(MX_ARG_aten_bmm_self == A(self) && MX_ARG_aten_bmm_mat2 == A(mat2) && MX_ARG_aten_bmm_out == A(out),
               "bmm's arguments sit where mm's do");

mx_arg_error mx_mm_check(mx_value *const *args, bool batched) {
  static const uint8_t f32[3] = {A(self), A(mat2), A(out)};
  MX_TRY(mx_check_arg_tensors(args, f32, 3, MX_DTYPE_F32));
  const mx_tensor *a = mx_arg_tensor(args, A(self)), *b = mx_arg_tensor(args, A(mat2));
  const uint32_t r = batched ? 3u : 2u, m = r - 2u;
  MX_REFUSE_IF(a->dim != r, A(self), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(b->dim != r || a->sizes[m + 1] != b->sizes[m] || (batched && a->sizes[0] != b->sizes[0]), A(mat2),
               MX_ERR_BAD_SHAPE);
  int32_t sizes[3] = {a->sizes[0], a->sizes[1], 0};
  sizes[r - 1] = b->sizes[r - 1];
  MX_CHECK(A(out), mx_check_sizes(mx_arg_tensor(args, A(out)), sizes, r));
  return MX_OK;
}
