/* NPU_OP_POOL: MAX, AVERAGE and REDUCE_SUM over the kernel window (REDUCE_SUM also over the IFM's depth, into
 * one OFM channel), values taken minus the IFM zero point, then the global OFM scale with the OFM rounding
 * mode, the OFM zero point and the activation.
 *
 * AVERAGE (what we inferred; regor's RescalePooling and Vela's generator): without padding the OFM scale
 * carries the 1/N (regor writes e.g. 2^38/125 for a 25x5 kernel) and the NPU scales the plain sum; with
 * padding regor writes the unit scale, so the NPU divides by the number of window elements inside the IFM
 * itself, as TOSA's AVG_POOL2D does. We compute that division with TOSA's reciprocal (multiplier
 * ((2^30 + 1) << k) / count, shift 30 + k, single rounding) and apply the OFM scale after it. Regor's 1x1
 * AVERAGE pools (copies, transposes with swapped OFM strides, TABLE with a LUT, PAD's fills) are the same
 * path with N = 1.
 * Without the global-scale bit (OFM_PRECISION bit 8; pools have no scale stream) there is no OFM_SCALE: Vela's
 * Python generator writes it so for MAX pools and for padded AVERAGE pools, whose division the NPU then does
 * itself. We apply no scale there (regor always sets the bit). */
#include "npu_activation.h"
#include "npu_fm.h"
#include "npu_round.h"
#include "npu_zero_point.h"

int mx_npu_exec_pool(mx_npu_exec *x) {
  const mx_npu_state *s = &x->op->state;
  unsigned mode = x->op->param;
  const char *mode_name = mode == MX_NPU_POOLING_MAX       ? "MAX"
                          : mode == MX_NPU_POOLING_AVERAGE ? "AVERAGE"
                                                           : "REDUCE_SUM";
  if (s->ifm.upscale != MX_NPU_RESAMPLING_NONE) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "POOL %s with IFM upscale mode %s is not implemented",
                            mode_name, s->ifm.upscale == MX_NPU_RESAMPLING_NEAREST ? "NEAREST" : "TRANSPOSE");
  }
  int oh = s->ofm.height_m1 + 1, ow = s->ofm.width_m1 + 1, oc = s->ofm.depth_m1 + 1;
  int ic = s->ifm.depth_m1 + 1;
  if (mode == MX_NPU_POOLING_REDUCE_SUM ? oc != 1 : ic != oc) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "POOL %s from IFM depth %d to OFM depth %d", mode_name, ic,
                            oc);
  }
  mx_npu_fmview ifm, ofm;
  mx_npu_activation_stage act;
  int rc = mx_npu_activation_bind_ifm_ofm(x, &ifm, &ofm, &act);
  if (rc != 0) return rc;
  int64_t ifm_zp = mx_npu_zero_point(&s->ifm.fm), ofm_zp = mx_npu_zero_point(&s->ofm.fm);
  int kh = s->kernel.height_m1 / s->kernel.dilation_y + 1, kw = s->kernel.width_m1 / s->kernel.dilation_x + 1;
  int sy = s->kernel.stride_y, sx = s->kernel.stride_x;
  int padded = s->ifm.pad_top || s->ifm.pad_left || s->ifm.pad_bottom || s->ifm.pad_right;
  int64_t ifm_h = (int64_t)(oh - 1) * sy + s->kernel.height_m1 + 1 - s->ifm.pad_top - s->ifm.pad_bottom;
  int64_t ifm_w = (int64_t)(ow - 1) * sx + s->kernel.width_m1 + 1 - s->ifm.pad_left - s->ifm.pad_right;
  int depth = mode == MX_NPU_POOLING_REDUCE_SUM ? ic : 1;

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
              v -= ifm_zp;
              if (mode == MX_NPU_POOLING_MAX) {
                acc = count == 0 || v > acc ? v : acc;
              } else {
                acc += v;
              }
              count++;
            }
          }
        }
        if (mode == MX_NPU_POOLING_MAX && count == 0) acc = ifm.lo - ifm_zp; /* a window wholly in the padding */
        int native = !s->ofm.global_scale || padded; /* the NPU divides by the count itself */
        if (mode == MX_NPU_POOLING_AVERAGE && native) acc = count == 0 ? 0 : mx_npu_average(acc, count);
        int64_t out = acc;
        if (s->ofm.global_scale) out = mx_npu_rescale(acc, s->ofm_scale.scale, s->ofm_scale.shift, s->ofm.rounding);
        out = mx_npu_add_saturate(out, ofm_zp);
        rc = mx_npu_fm_write(x, &ofm, oy, ox, c, mx_npu_activation_apply(&act, out));
        if (rc != 0) return rc;
      }
    }
  }
  return 0;
}
