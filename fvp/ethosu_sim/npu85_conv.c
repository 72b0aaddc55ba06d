/* Ethos-U85 NPU_OP_CONV and NPU_OP_DEPTHWISE: the U55's arithmetic (npu_conv.c's mx_npu_conv_compute: bias + sum
 * of (IFM - zero point) x weight, the channel's scale and shift with the OFM rounding of OFM_SCALE, the OFM zero
 * point, the activation), with the U85's weight streams and records (npu85_weights.c). */
#include <string.h>

#include "npu85_exec.h"

int mx_npu85_exec_conv(mx_npu_exec *x) {
  const mx_npu_state *s = &x->op->state;
  mx_npu_conv_shape g = mx_npu_conv_shape_of(x, x->cores);
  if (x->op->param & 1u) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "CONV with its weights from IFM2 is not implemented");
  }
  if (s->ifm.fm.dtype != MX_NPU_DTYPE_S8 && s->ifm.fm.dtype != MX_NPU_DTYPE_U8) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "%s IFM is not implemented (8-bit only)",
                            s->ifm.fm.dtype == MX_NPU_DTYPE_S32 ? "a 32-bit" : "a 16-bit");
  }
  if (s->u85.acc_format != 0) { /* regor's for 16-bit IFMs (48-bit bias records): never seen with 8-bit ones */
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED,
                            "a convolution with the 48-bit accumulator is not implemented");
  }
  if (s->ofm.global_scale) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED,
                            "a convolution with the global OFM scale is not implemented");
  }
  if (g.depthwise && s->ifm.depth_m1 != s->ofm.depth_m1) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "depthwise with IFM depth %d and OFM depth %d",
                            s->ifm.depth_m1 + 1, g.oc);
  }
  if (g.oc > MX_NPU_MAX_CHANNELS || (uint64_t)g.oc * g.kh * g.kw * g.ic > MX_NPU_MAX_WEIGHTS) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_TOO_LARGE, "%d x %dx%d x %d weights exceed the executor's %d", g.oc, g.kh,
                            g.kw, g.ic, MX_NPU_MAX_WEIGHTS);
  }
  mx_npu_fmview ifm, ofm;
  mx_npu_activation_stage act;
  int rc = mx_npu85_bind(x, &ifm, &ofm, &act);
  if (rc != 0) return rc;
  memset(x->weights, 0, sizeof x->weights[0] * (size_t)g.oc * g.kh * g.kw * g.ic);
  rc = mx_npu85_load_weights(x, &g);
  if (rc != 0) return rc;
  return mx_npu_conv_compute(x, &g, &ifm, &ofm, &act);
}
