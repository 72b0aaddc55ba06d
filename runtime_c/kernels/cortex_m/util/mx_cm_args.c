#include "mx_cm_args.h"

mx_error mx_cm_int32(const mx_value *v, int32_t *out) {
  return mx_cm_int_in(v, INT32_MIN, INT32_MAX, out);
}

mx_error mx_cm_int_in(const mx_value *v, int32_t lo, int32_t hi, int32_t *out) {
  int64_t i = 0;
  MX_TRY(mx_arg_int(v, &i));
  if (i < lo || i > hi) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  *out = (int32_t)i;
  return MX_OK;
}

mx_error mx_cm_pair(const mx_value *v, int32_t lo, int32_t hi, int32_t out[2]) {
  const int64_t *items = NULL;
  uint32_t len = 0;
  MX_TRY(mx_arg_int_list(v, &items, &len));
  if (len != 1 && len != 2) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  for (uint32_t i = 0; i < 2; ++i) {
    int64_t x = items[len == 1 ? 0 : i];
    if (x < lo || x > hi) {
      return MX_ERR_BAD_ARG_VALUE;
    }
    out[i] = (int32_t)x;
  }
  return MX_OK;
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

mx_error mx_cm_nhwc(const mx_tensor *t, bool nhwc_logical, cmsis_nn_dims *dims) {
  MX_TRY(mx_tensor_check(t));
  if (t->dtype != MX_DTYPE_I8) {
    return MX_ERR_BAD_DTYPE;
  }
  if (t->dim != 4) {
    return MX_ERR_BAD_SHAPE;
  }
  const int32_t *s = t->sizes;
  if (nhwc_logical) {
    if (!mx_is_contiguous(t)) {
      return MX_ERR_BAD_ARG_VALUE;
    }
    *dims = (cmsis_nn_dims){s[0], s[1], s[2], s[3]};
    return MX_OK;
  }
  /* Channels-last bytes under any dim order that lays them out the same: ExecuTorch writes (0, 2, 1, 3) for
   * a channels-last [N, 1, H, W], and our lowering leaves such tensors contiguous. */
  static const uint8_t nhwc[4] = {0, 2, 3, 1};
  if (!orders_match(s, 4, t->dim_order, nhwc)) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  *dims = (cmsis_nn_dims){s[0], s[2], s[3], s[1]};
  return MX_OK;
}

mx_error mx_cm_i32_vector(const mx_tensor *t, int32_t n, int32_t **data) {
  MX_TRY(mx_check_tensor(t, MX_DTYPE_I32));
  if (n < 0 || t->numel != (uint32_t)n) {
    return MX_ERR_BAD_SHAPE;
  }
  *data = (int32_t *)t->data;
  return MX_OK;
}

mx_error mx_cm_physical4(const mx_tensor *t, int32_t sizes[4]) {
  MX_TRY(mx_tensor_check(t));
  if (t->dim > 4) {
    return MX_ERR_BAD_SHAPE;
  }
  uint32_t lead = 4u - t->dim;
  for (uint32_t i = 0; i < 4; ++i) {
    sizes[i] = i < lead ? 1 : t->sizes[t->dim_order[i - lead]];
  }
  return MX_OK;
}

bool mx_cm_same_memory(const mx_tensor *a, const mx_tensor *b) {
  return mx_same_shape(a, b) && orders_match(a->sizes, a->dim, a->dim_order, b->dim_order);
}

mx_error mx_cm_scratch(const mx_tensor *scratch, int32_t need, cmsis_nn_context *ctx) {
  MX_TRY(mx_tensor_check(scratch));
  if (need < 0 || scratch->nbytes < (uint32_t)need || scratch->nbytes > (uint32_t)INT32_MAX) {
    return MX_ERR_BAD_ARG_VALUE;
  }
  if (((uintptr_t)scratch->data & 3u) != 0) {
    return MX_ERR_MISALIGNED;
  }
  ctx->buf = scratch->nbytes > 0 ? scratch->data : NULL;
  ctx->size = (int32_t)scratch->nbytes;
  return MX_OK;
}

mx_error mx_cm_status(arm_cmsis_nn_status status) {
  switch (status) {
    case ARM_CMSIS_NN_SUCCESS:
      return MX_OK;
    case ARM_CMSIS_NN_NO_IMPL_ERROR:
      return MX_ERR_UNSUPPORTED;
    default: /* ARG_ERROR, FAILURE: the arguments passed our checks but not the library's */
      return MX_ERR_BAD_ARG_VALUE;
  }
}

mx_error mx_cm_qparams_args(mx_value *const *args, uint32_t nargs, mx_cm_qparams *q) {
  if (nargs != 8) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  MX_TRY(mx_arg_tensor(args[0], &q->in));
  MX_TRY(mx_arg_double(args[1], &q->scale));
  MX_TRY(mx_cm_int32(args[2], &q->zero_point));
  MX_TRY(mx_cm_int32(args[3], &q->quant_min));
  MX_TRY(mx_cm_int32(args[4], &q->quant_max));
  MX_TRY(mx_cm_int32(args[5], &q->dtype));
  MX_TRY(mx_arg_tensor(args[6], &q->out));
  return mx_arg_ret_is(args[7], q->out);
}
