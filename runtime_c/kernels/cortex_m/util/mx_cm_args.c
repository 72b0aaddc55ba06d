#include "mx_cm_args.h"

#include "util/mx_f64_f32.h"

mx_error mx_cm_pair_check(const mx_int_list *l) { return l->len == 1 || l->len == 2 ? MX_OK : MX_ERR_BAD_ARG_VALUE; }

void mx_cm_pair(const mx_int_list *l, int32_t out[2]) {
  out[0] = (int32_t)l->items[0];
  out[1] = (int32_t)l->items[l->len - 1];
}

/* Whether two dim orders of one shape lay the bytes out identically: equal once size-1 dims are skipped. */
static bool orders_match(const int32_t *sizes, uint32_t dim, const uint8_t *a, const uint8_t *b) {
  uint32_t i = 0, j = 0;
  for (;;) {
    while (i < dim && sizes[a[i]] == 1) {
      ++i;
    }
    while (j < dim && sizes[b[j]] == 1) {
      ++j;
    }
    if (i == dim || j == dim) {
      return i == dim && j == dim;
    }
    if (a[i++] != b[j++]) {
      return false;
    }
  }
}

mx_arg_error mx_cm_nhwc_arg(mx_value *const *args, uint32_t i, bool nhwc_logical) {
  const mx_tensor *t = args[i]->u.t;
  MX_REFUSE_IF(t->dtype != MX_DTYPE_I8, i, MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(t->dim != 4, i, MX_ERR_BAD_SHAPE);
  /* Channels-last bytes under any dim order that lays them out the same: ExecuTorch writes (0, 2, 1, 3) for
   * a channels-last [N, 1, H, W], and our lowering leaves such tensors contiguous. */
  static const uint8_t nhwc[4] = {0, 2, 3, 1};
  MX_REFUSE_IF(nhwc_logical ? !mx_is_contiguous(t) : !orders_match(t->sizes, 4, t->dim_order, nhwc), i,
               MX_ERR_BAD_ARG_VALUE);
  return MX_OK;
}

cmsis_nn_dims mx_cm_nhwc(const mx_tensor *t, bool nhwc_logical) {
  const int32_t *s = t->sizes;
  return nhwc_logical ? (cmsis_nn_dims){s[0], s[1], s[2], s[3]} : (cmsis_nn_dims){s[0], s[2], s[3], s[1]};
}

mx_arg_error mx_cm_i32_vector(mx_value *const *args, uint32_t i, int32_t n) {
  const mx_tensor *t = args[i]->u.t;
  MX_TRY(mx_check_arg_tensor(args, i, MX_DTYPE_I32));
  MX_REFUSE_IF(n < 0 || t->numel != (uint32_t)n, i, MX_ERR_BAD_SHAPE);
  /* checks read these values at load (util/mx_cm_ranges.h): they must be the program's, not an arena's */
  MX_REFUSE_IF((t->flags & MX_TENSOR_PLANNED) != 0, i, MX_ERR_BAD_ARG_VALUE);
  return MX_OK;
}

void mx_cm_physical4(const mx_tensor *t, int32_t sizes[4]) {
  uint32_t lead = 4u - t->dim;
  for (uint32_t i = 0; i < 4; ++i) {
    sizes[i] = i < lead ? 1 : t->sizes[t->dim_order[i - lead]];
  }
}

bool mx_cm_same_memory(const mx_tensor *a, const mx_tensor *b) {
  return mx_same_shape(a, b) && orders_match(a->sizes, a->dim, a->dim_order, b->dim_order);
}

mx_error mx_cm_scratch_check(const mx_tensor *scratch, int32_t need) {
  if (need < 0 || mx_tensor_nbytes(scratch) < (uint32_t)need || mx_tensor_nbytes(scratch) > (uint32_t)INT32_MAX) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  return ((uintptr_t)scratch->data & 3u) == 0 ? MX_OK : MX_ERR_MISALIGNED;
}

cmsis_nn_context mx_cm_scratch(const mx_tensor *scratch) {
  return (cmsis_nn_context){mx_tensor_nbytes(scratch) > 0 ? scratch->data : NULL, (int32_t)mx_tensor_nbytes(scratch)};
}

mx_error mx_cm_status(arm_cmsis_nn_status status) {
  switch (status) {
    case ARM_CMSIS_NN_SUCCESS: return MX_OK;
    case ARM_CMSIS_NN_NO_IMPL_ERROR: return MX_ERR_UNSUPPORTED;
    default: /* ARG_ERROR, FAILURE: the arguments passed our checks but not the library's */
      return MX_ERR_BAD_ARG_VALUE;
  }
}

#define Q(name) MX_ARG_cortex_m_quantize_per_tensor_##name
#define DQ(name) MX_ARG_cortex_m_dequantize_per_tensor_##name
_Static_assert(Q(input) == DQ(input) && Q(scale) == DQ(scale) && Q(zero_point) == DQ(zero_point) &&
                   Q(quant_min) == DQ(quant_min) && Q(quant_max) == DQ(quant_max) && Q(dtype) == DQ(dtype) &&
                   Q(out) == DQ(out),
               "quantize and dequantize share their arguments");

mx_cm_qparams mx_cm_qparams_read(mx_value *const *args) {
  return (mx_cm_qparams){mx_arg_tensor(args, Q(input)),  mx_arg_tensor(args, Q(out)),   mx_arg_double(args, Q(scale)),
                         mx_cm_int(args, Q(zero_point)), mx_cm_int(args, Q(quant_min)), mx_cm_int(args, Q(quant_max)),
                         mx_cm_int(args, Q(dtype))};
}

mx_arg_error mx_cm_qparams_check(mx_value *const *args, bool quantize) {
  const mx_cm_qparams q = mx_cm_qparams_read(args);
  const uint32_t float_arg = quantize ? Q(input) : Q(out);
  const mx_tensor *ints = quantize ? q.out : q.in;
  MX_REFUSE_IF(args[float_arg]->u.t->dtype != MX_DTYPE_F32, float_arg, MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(q.dtype != ints->dtype || (q.dtype != MX_DTYPE_I8 && q.dtype != MX_DTYPE_I16), Q(dtype),
               MX_ERR_BAD_DTYPE);
  /* any layout (channels-last included), the same for input and out */
  MX_REFUSE_IF(!mx_cm_same_memory(q.in, q.out), Q(out), MX_ERR_BAD_SHAPE);
  /* tests of the double's bits: no soft-float double where the FPU has none (util/mx_f64_f32.h) */
  MX_REFUSE_IF(!mx_f64_is_finite(q.scale) || (quantize && !mx_f64_is_positive(q.scale)), Q(scale),
               MX_ERR_BAD_ARG_VALUE);
  /* the kernels take 1 / scale (quantize) or scale (dequantize) as a float */
  MX_REFUSE_IF(!(quantize ? mx_f64_recip_fits_f32(q.scale) : mx_f64_fits_f32(q.scale)), Q(scale), MX_ERR_ARITH_RANGE);
  const int32_t lo = q.dtype == MX_DTYPE_I8 ? INT8_MIN : INT16_MIN, hi = q.dtype == MX_DTYPE_I8 ? INT8_MAX : INT16_MAX;
  MX_REFUSE_IF(q.quant_min > q.quant_max || (quantize && (q.quant_min < lo || q.quant_max > hi)), Q(quant_min),
               MX_ERR_BAD_ARG_VALUE);
  return MX_OK;
}
