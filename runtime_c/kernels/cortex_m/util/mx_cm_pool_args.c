#include "mx_cm_pool_args.h"

mx_error mx_cm_read_window(mx_value *const *args, mx_cm_pool *p) {
  MX_TRY(mx_arg_tensor(args[0], &p->in));
  MX_TRY(mx_cm_pair(args[1], 1, MX_CM_POOL_MAX, p->kernel));
  MX_TRY(mx_cm_pair(args[2], 1, MX_CM_POOL_MAX, p->stride));
  return mx_cm_pair(args[3], 0, MX_CM_POOL_MAX, p->pad);
}

mx_error mx_cm_pool_shapes(mx_cm_pool *p, bool nhwc, bool ceil_mode) {
  MX_TRY(mx_cm_nhwc(p->in, nhwc, &p->in_dims));
  MX_TRY(mx_cm_nhwc(p->out, nhwc, &p->out_dims));
  for (int i = 0; i < 2; ++i) {
    if (2 * p->pad[i] > p->kernel[i]) {
      return MX_ERR_BAD_ARG_VALUE; /* torch's rule; it also keeps every window on at least one input */
    }
  }
  if (p->out_dims.n != p->in_dims.n || p->out_dims.c != p->in_dims.c ||
      p->out_dims.h != mx_cm_window_out(p->in_dims.h, p->kernel[0], p->stride[0], p->pad[0], 1, ceil_mode) ||
      p->out_dims.w != mx_cm_window_out(p->in_dims.w, p->kernel[1], p->stride[1], p->pad[1], 1, ceil_mode)) {
    return MX_ERR_BAD_SHAPE;
  }
  return MX_OK;
}
