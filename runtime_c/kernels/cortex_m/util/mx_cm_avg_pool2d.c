/* quantized_avg_pool2d(_nhwc) via arm_avgpool_s8. Input and output share their quantization, so
 * zero_point/multiplier/shift do not enter the arithmetic. */
#include "arm_nnfunctions.h"
#include "mx_cm_pool_args.h"
#include "mx_cm_rows.h"
#include "mx_cm_avg_pool2d.h"

#define A(name) MX_ARG_cortex_m_quantized_avg_pool2d_##name

mx_arg_error mx_cm_avg_pool2d_check(mx_value *const *args, bool nhwc) {
  mx_cm_pool p;
  MX_TRY(mx_cm_pool_check(args, A(out), nhwc, mx_arg_bool(args, A(ceil_mode)), &p));
  /* a window's int32 sum, plus half its tap count to round, over at most this many valid taps */
  const int64_t taps_h = p.kernel[0] < p.in_dims.h ? p.kernel[0] : p.in_dims.h;
  const int64_t taps_w = p.kernel[1] < p.in_dims.w ? p.kernel[1] : p.in_dims.w;
  MX_REFUSE_IF(taps_h * taps_w * 129 > INT32_MAX, A(kernel_size), MX_ERR_ARITH_RANGE);
  MX_CHECK(A(scratch), mx_cm_scratch_check(mx_arg_tensor(args, A(scratch)),
                                           arm_avgpool_s8_get_buffer_size(p.out_dims.w, p.in_dims.c)));
  return MX_OK;
}

mx_error mx_cm_avg_pool2d(mx_value *const *args, bool nhwc) {
  mx_cm_pool p;
  mx_cm_pool_read(args, A(out), nhwc, &p);
  if (p.out->numel == 0) {
    return MX_OK;
  }
  const cmsis_nn_context cm = mx_cm_scratch(mx_arg_tensor(args, A(scratch)));
  const cmsis_nn_pool_params pp = {{p.stride[1], p.stride[0]}, {p.pad[1], p.pad[0]}, {INT8_MIN, INT8_MAX}};
  const cmsis_nn_dims filter_dims = {1, p.kernel[0], p.kernel[1], 1};
  mx_cm_rows r = mx_cm_pool_geometry(&p);
  const int8_t *in = (const int8_t *)p.in->data;
  int8_t *out = (int8_t *)p.out->data;
  for (int32_t i = 0, calls = mx_cm_rows_calls(&r, in, out); i < calls; i++) {
    mx_cm_rows_call k;
    mx_cm_rows_call_at(&r, in, out, i, &k);
    cmsis_nn_pool_params row = pp;
    row.padding.h = k.pad;
    MX_TRY(mx_cm_status(arm_avgpool_s8(&cm, &row, &k.in_dims, k.in, &filter_dims, &k.out_dims, k.out)));
  }
  return MX_OK;
}

bool mx_cm_avg_pool2d_overlap(mx_value *const *args, uint32_t arg, uint32_t out) {
  return mx_cm_pool_overlap(args, arg, out, false);
}
bool mx_cm_avg_pool2d_nhwc_overlap(mx_value *const *args, uint32_t arg, uint32_t out) {
  return mx_cm_pool_overlap(args, arg, out, true);
}
