#include "mx_cm_conv_dispatch.h"

mx_cm_conv_kind mx_cm_conv_kind_of(const cmsis_nn_conv_params *p, const cmsis_nn_dims *in, const cmsis_nn_dims *f) {
  if (f->c != in->c) {
    return MX_CM_CONV_GENERAL; /* grouped */
  }
  if (p->padding.w == 0 && p->padding.h == 0 && f->w == 1 && f->h == 1 && p->dilation.w == 1 && p->dilation.h == 1) {
    return (p->stride.w == 1 && p->stride.h == 1) ? MX_CM_CONV_1X1_FAST : MX_CM_CONV_1X1;
  }
  if (in->h == 1 && p->dilation.w == 1 && f->h == 1 && (p->stride.w * in->c) % 4 == 0) {
    return MX_CM_CONV_1_X_N;
  }
  return MX_CM_CONV_GENERAL;
}

/* The compiler's own MVE macro: the same on CMSIS-NN's headers and ours. */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
enum { HAS_3X3 = 0 };
#else
enum { HAS_3X3 = 1 };
#endif

mx_cm_dw_kind mx_cm_dw_conv_kind_of(const cmsis_nn_dw_conv_params *p, const cmsis_nn_dims *in, const cmsis_nn_dims *f,
                                    const cmsis_nn_dims *out) {
  if (p->ch_mult != 1 || in->c != out->c || in->n != 1 || p->dilation.w != 1 || p->dilation.h != 1) {
    return MX_CM_DW_GENERAL;
  }
  return HAS_3X3 && f->w == 3 && f->h == 3 && p->padding.h <= 1 && p->padding.w <= 1 ? MX_CM_DW_3X3 : MX_CM_DW_OPT;
}
