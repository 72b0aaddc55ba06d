#include "mx_cm_conv_args.h"

/* Shift-and-subtract division for the 64-bit case that mx_cm_window_out's callers never reach. */
static int64_t span_div(uint64_t n, uint64_t d) {
  uint64_t q = 0, r = 0;
  for (int b = 63; b >= 0; --b) {
    r = (r << 1) | ((n >> b) & 1u);
    if (r >= d) {
      r -= d;
      q |= (uint64_t)1 << b;
    }
  }
  return (int64_t)q;
}

int64_t mx_cm_window_out(int64_t size, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, bool ceil_mode) {
  int64_t span = size + 2 * pad - dilation * (kernel - 1) - 1;
  if (span < 0) {
    return 0;
  }
  /* Callers pass int32 sizes and parameters up to MX_CM_PARAM_MAX, so the dividend fits 32 bits and the
   * division needs no libgcc __aeabi_ldivmod; larger values (never passed) take the 64-bit path. */
  const uint64_t num = (uint64_t)(span + (ceil_mode ? stride - 1 : 0));
  int64_t out = (num >> 32) == 0 && stride > 0 && stride <= UINT32_MAX
                    ? (int64_t)((uint32_t)num / (uint32_t)stride) + 1
                    : span_div(num, (uint64_t)stride) + 1;
  if (ceil_mode && (out - 1) * stride >= size + pad) {
    --out;
  }
  return out;
}

mx_error mx_cm_read_conv(mx_value *const *args, uint32_t extra, bool nhwc, mx_cm_conv *c) {
  const uint32_t k = 6 + extra; /* input_offset */
  mx_tensor *mult = NULL, *shift = NULL;
  MX_TRY(mx_arg_tensor(args[0], &c->in));
  MX_TRY(mx_arg_tensor(args[1], &c->w));
  MX_TRY(mx_arg_opt_tensor(args[2], &c->bias));
  MX_TRY(mx_cm_pair(args[3], 1, MX_CM_PARAM_MAX, c->stride));
  MX_TRY(mx_cm_pair(args[4], 0, MX_CM_PARAM_MAX, c->pad));
  MX_TRY(mx_cm_pair(args[5], 1, MX_CM_PARAM_MAX, c->dil));
  MX_TRY(mx_cm_int_in(args[k], -127, 128, &c->in_off));
  MX_TRY(mx_cm_int_in(args[k + 1], -128, 127, &c->out_off));
  MX_TRY(mx_arg_tensor(args[k + 2], &mult));
  MX_TRY(mx_arg_tensor(args[k + 3], &shift));
  MX_TRY(mx_cm_int_in(args[k + 4], -128, 127, &c->act_min));
  MX_TRY(mx_cm_int_in(args[k + 5], c->act_min, 127, &c->act_max));
  MX_TRY(mx_arg_tensor(args[k + 6], &c->scratch));
  MX_TRY(mx_arg_tensor(args[k + 7], &c->out));
  MX_TRY(mx_arg_ret_is(args[k + 8], c->out));
  MX_TRY(mx_cm_nhwc(c->in, nhwc, &c->in_dims));
  MX_TRY(mx_cm_nhwc(c->out, nhwc, &c->out_dims));
  MX_TRY(mx_check_tensor(c->w, MX_DTYPE_I8));
  if (c->w->dim != 4 || c->in_dims.n != c->out_dims.n) {
    return MX_ERR_BAD_SHAPE;
  }
  const int32_t c_out = c->out_dims.c;
  MX_TRY(mx_cm_i32_vector(mult, c_out, &c->mult));
  MX_TRY(mx_cm_i32_vector(shift, c_out, &c->shift));
  for (int32_t o = 0; o < c_out; ++o) {
    if (c->shift[o] < -31 || c->shift[o] > 31) {
      return MX_ERR_BAD_ARG_VALUE;
    }
  }
  c->bias_data = NULL;
  if (c->bias != NULL) {
    MX_TRY(mx_cm_i32_vector(c->bias, c_out, &c->bias_data));
  }
  const int32_t kh = c->w->sizes[1], kw = c->w->sizes[2];
  if (c->out_dims.h != mx_cm_window_out(c->in_dims.h, kh, c->stride[0], c->pad[0], c->dil[0], false) ||
      c->out_dims.w != mx_cm_window_out(c->in_dims.w, kw, c->stride[1], c->pad[1], c->dil[1], false)) {
    return MX_ERR_BAD_SHAPE;
  }
  return MX_OK;
}
