/* quantized_max_pool2d(_nhwc) via arm_max_pool_s8. Dilation must be 1 and the zero points equal. */
#include "arm_nnfunctions.h"
#include "mx_cm_pool_args.h"
#include "mx_cm_rows.h"
#include "mx_cm_max_pool2d.h"

#define A(name) MX_ARG_cortex_m_quantized_max_pool2d_##name

mx_arg_error mx_cm_max_pool2d_check(mx_value *const *args, bool nhwc) {
  MX_REFUSE_IF(mx_arg_int(args, A(activation_max)) < mx_arg_int(args, A(activation_min)), A(activation_max),
               MX_ERR_BAD_ARG_VALUE);
  const mx_int_list *dil = mx_arg_int_list(args, A(dilation));
  MX_CHECK(A(dilation), mx_cm_pair_check(dil));
  MX_REFUSE_IF(dil->items[0] != 1 || dil->items[dil->len - 1] != 1, A(dilation), MX_ERR_UNSUPPORTED);
  MX_REFUSE_IF(mx_arg_int(args, A(input_zero_point)) != mx_arg_int(args, A(output_zero_point)), A(output_zero_point),
               MX_ERR_BAD_ARG_VALUE);
  mx_cm_pool p;
  return mx_cm_pool_check(args, A(out), nhwc, mx_arg_bool(args, A(ceil_mode)), &p);
}

mx_error mx_cm_max_pool2d(mx_value *const *args, bool nhwc) {
  mx_cm_pool p;
  mx_cm_pool_read(args, A(out), nhwc, &p);
  if (p.out->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_context cm = {NULL, 0};
  const cmsis_nn_pool_params pp = {{p.stride[1], p.stride[0]},
                                   {p.pad[1], p.pad[0]},
                                   {mx_cm_int(args, A(activation_min)), mx_cm_int(args, A(activation_max))}};
  const cmsis_nn_dims filter_dims = {1, p.kernel[0], p.kernel[1], 1};
  mx_cm_rows r = mx_cm_pool_geometry(&p);
  const int8_t *in = (const int8_t *)p.in->data;
  int8_t *out = (int8_t *)p.out->data;
  for (int32_t i = 0, calls = mx_cm_rows_calls(&r, in, out); i < calls; i++) {
    mx_cm_rows_call k;
    mx_cm_rows_call_at(&r, in, out, i, &k);
    cmsis_nn_pool_params row = pp;
    row.padding.h = k.pad;
    MX_TRY(mx_cm_status(arm_max_pool_s8(&cm, &row, &k.in_dims, k.in, &filter_dims, &k.out_dims, k.out)));
  }
  return MX_OK;
}

bool mx_cm_max_pool2d_overlap(mx_value *const *args, uint32_t arg, uint32_t out) {
  return mx_cm_pool_overlap(args, arg, out, false);
}
bool mx_cm_max_pool2d_nhwc_overlap(mx_value *const *args, uint32_t arg, uint32_t out) {
  return mx_cm_pool_overlap(args, arg, out, true);
}
