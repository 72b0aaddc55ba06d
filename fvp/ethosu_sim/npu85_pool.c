/* Ethos-U85 NPU_OP_POOL: values minus the IFM zero point, reduced over the kernel window (REDUCE_SUM: and over the IFM
 * depth, into one OFM channel), the global OFM scale with OFM_SCALE's rounding, the OFM zero point, the activation,
 * written where OFM_PRECISION's transpose says (regor's TRANSPOSE and copies are 1x1 pools).
 *
 * Modes (regor's GetPoolingMode): MAX; AVERAGE (regor's for kernels up to 8x8): the NPU divides the window's sum
 * by the number of its elements inside the IFM itself (TOSA's AVG_POOL2D; we compute TOSA's reciprocal as for the
 * U55's padded average), then the OFM scale; SUM (larger average kernels, regor folds the 1/N into OFM_SCALE) and
 * REDUCE_SUM: the plain sum, then the OFM scale; NONE (regor's NullPool, copies of 32-bit data): the 1x1 value as it
 * is; with ACC_FORMAT's accumulator input IFM2 (regor's RESCALE of 32-bit data) the value is IFM2's, minus its zero
 * point, then the OFM scale. MIN (unchecked) and ARGMAX_X/Y are refused. */
#include "npu85_exec.h"
#include "npu_round.h"
#include "npu_zero_point.h"

enum { MAX = 0, AVERAGE = 1, REDUCE_SUM = 2, SUM = 3, NONE = 4, MIN = 5 };

int mx_npu85_exec_pool(mx_npu_exec *x) {
  const mx_npu_state *s = &x->op->state;
  static const char *const names[8] = {"MAX", "AVERAGE", "REDUCE_SUM", "SUM", "NONE", "MIN", "ARGMAX_X", "ARGMAX_Y"};
  unsigned mode = x->op->param & 7u;
  if (mode >= MIN) { /* MIN: regor's REDUCE_MIN, which our partitioner never sends (unchecked), and ARGMAX */
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "POOL %s is not implemented", names[mode]);
  }
  int oh = s->ofm.height_m1 + 1, ow = s->ofm.width_m1 + 1, oc = s->ofm.depth_m1 + 1, ic = s->ifm.depth_m1 + 1;
  if (mode == REDUCE_SUM ? oc != 1 : ic != oc) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "POOL %s from IFM depth %d to OFM depth %d", names[mode], ic,
                            oc);
  }
  mx_npu_fmview ifm, ofm;
  mx_npu_activation_stage act;
  int rc = mx_npu85_bind(x, &ifm, &ofm, &act);
  int from_ifm2 = s->u85.acc_input == 2; /* mx_npu85_bind allows it for NONE only */
  if (rc == 0 && from_ifm2) rc = mx_npu85_fm_bind(x, &s->ifm2.fm, s->u85.ifm2_storage, "IFM2", &ifm);
  if (rc != 0) return rc;
  int64_t ifm_zp = mx_npu_zero_point(from_ifm2 ? &s->ifm2.fm : &s->ifm.fm), ofm_zp = mx_npu_zero_point(&s->ofm.fm);
  int kh = s->kernel.height_m1 / s->kernel.dilation_y + 1, kw = s->kernel.width_m1 / s->kernel.dilation_x + 1;
  int sy = s->kernel.stride_y, sx = s->kernel.stride_x;
  int64_t ifm_h = (int64_t)(oh - 1) * sy + s->kernel.height_m1 + 1 - s->ifm.pad_top - s->ifm.pad_bottom;
  int64_t ifm_w = (int64_t)(ow - 1) * sx + s->kernel.width_m1 + 1 - s->ifm.pad_left - s->ifm.pad_right;
  int depth = mode == REDUCE_SUM ? ic : 1;
  if (mode == NONE && (kh != 1 || kw != 1)) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "POOL NONE with a %dx%d kernel", kh, kw);
  }

  for (int oy = 0; oy < oh; oy++) {
    for (int ox = 0; ox < ow; ox++) {
      for (int c = 0; c < oc; c++) {
        int64_t acc = 0;
        uint32_t count = 0;
        for (int ky = 0; ky < kh; ky++) {
          int64_t iy = (int64_t)oy * sy - s->ifm.pad_top + (int64_t)ky * s->kernel.dilation_y;
          if (iy < 0 || iy >= ifm_h) continue;
          for (int kx = 0; kx < kw; kx++) {
            int64_t ix = (int64_t)ox * sx - s->ifm.pad_left + (int64_t)kx * s->kernel.dilation_x;
            if (ix < 0 || ix >= ifm_w) continue;
            for (int d = 0; d < depth; d++) {
              int64_t v;
              rc = mx_npu_fm_read(x, &ifm, (int)iy, (int)ix, depth > 1 ? d : c, &v);
              if (rc != 0) return rc;
              if (mode != NONE || from_ifm2) v -= ifm_zp;
              if (mode == MAX) {
                acc = count == 0 || v > acc ? v : acc;
              } else {
                acc += v;
              }
              count++;
            }
          }
        }
        if (count == 0 && mode == MAX) acc = ifm.lo - ifm_zp; /* a window wholly in the padding */
        if (mode == AVERAGE) acc = count == 0 ? 0 : mx_npu_average(acc, count);
        int64_t out = acc;
        if (mode != NONE || from_ifm2) {
          if (s->ofm.global_scale) out = mx_npu_rescale(acc, s->ofm_scale.scale, s->ofm_scale.shift, s->ofm.rounding);
          out = mx_npu_add_saturate(out, ofm_zp);
        }
        rc = mx_npu_ofm_write(x, &ofm, oy, ox, c, mx_npu_activation_apply(&act, out));
        if (rc != 0) return rc;
      }
    }
  }
  return 0;
}
