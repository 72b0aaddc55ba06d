/* NPU_OP_ELEMENTWISE: per OFM element, operands A and B (A = IFM and B = IFM2, or the reverse when
 * IFM2_BROADCAST's bit 6 says so; B may be the IFM2_SCALAR, and IFM2 may be broadcast in H, W, C), each minus
 * its zero point; the mode's arithmetic; for ADD, SUB, MUL, ABS (the global-scale modes) the OFM scale with the
 * OFM rounding mode; the OFM zero point; the activation.
 *
 * ADD/SUB operand scaling (IFM_PRECISION's scale mode, rounded with IFM_PRECISION's rounding):
 *   16BIT       A x OPA_SCALE (shifted right by its shift), B x OPB_SCALE
 *   OPA_32BIT   A x OPA_SCALE >> shift, and B x 2^19
 *   OPB_32BIT   B x OPA_SCALE >> shift, and A x 2^19
 * The 2^19 is what we inferred: Vela and regor compute the 32-bit operand scale as the ratio of the operand
 * scales times 2^19 (an input shift of 20, halved) and an OFM scale that divides the sum by the larger
 * operand's 2^19, so the unscaled operand must be taken x 2^19 (8-bit operands; 16-bit ones use 2^14, which
 * we refuse as untested). mcu_export/ethosu/add_rescale.py gives the TOSA form it matches.
 * SHR rounds as the OFM rounding mode says: NATURAL halves up (regor's form of TOSA's ARITHMETIC_RIGHT_SHIFT with
 * round = true), TFL not at all, a floor (regor's form of round = false; checked against TOSA), TRUNCATE towards
 * zero (Vela's description of the mode; untested). SHL keeps the low 32 bits (TOSA's LOGICAL_LEFT_SHIFT); CLZ
 * counts the leading zeros of the 32-bit value. */
#include "npu_activation.h"
#include "npu_fm.h"
#include "npu_round.h"
#include "npu_zero_point.h"

#define UNSCALED_SHIFT 19

static const char *mode_name(unsigned mode) {
  static const char *names[] = {"MUL", "ADD", "SUB", "MIN", "MAX", "LRELU", "ABS", "CLZ", "SHR", "SHL"};
  return mode < sizeof names / sizeof names[0] ? names[mode] : "?";
}

static int clz32(uint32_t v) {
  int n = 0;
  if (v == 0) return 32;
  while (!(v & 0x80000000u)) v <<= 1, n++;
  return n;
}

static int64_t shift_amount(int64_t b) { return b < 0 ? 0 : b > 63 ? 63 : b; }

int mx_npu_exec_elementwise(mx_npu_exec *x) {
  const mx_npu_state *s = &x->op->state;
  unsigned mode = x->op->param;
  int unary = mode == MX_NPU_ELEMENTWISE_ABS || mode == MX_NPU_ELEMENTWISE_CLZ || mode == MX_NPU_ELEMENTWISE_LRELU;
  if (mode == MX_NPU_ELEMENTWISE_LRELU) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "ELEMENTWISE LRELU is not implemented");
  }
  int add_sub = mode == MX_NPU_ELEMENTWISE_ADD || mode == MX_NPU_ELEMENTWISE_SUB;
  unsigned scale_mode = add_sub ? s->ifm.scale_mode : MX_NPU_SCALE_MODE_16BIT;
  if (scale_mode != MX_NPU_SCALE_MODE_16BIT && s->ifm.fm.dtype != MX_NPU_DTYPE_S8 &&
      s->ifm.fm.dtype != MX_NPU_DTYPE_U8) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED,
                            "ELEMENTWISE %s with a 32-bit operand scale on %s operands is not implemented (8-bit only)",
                            mode_name(mode), s->ifm.fm.dtype == MX_NPU_DTYPE_S32 ? "32-bit" : "16-bit");
  }
  int scaled = s->ofm.global_scale;
  int oh = s->ofm.height_m1 + 1, ow = s->ofm.width_m1 + 1, oc = s->ofm.depth_m1 + 1;
  mx_npu_fmview ifm, ifm2, ofm;
  mx_npu_activation_stage act;
  int rc = mx_npu_fm_bind(x, &s->ifm.fm, "IFM", &ifm);
  if (rc == 0 && !unary && !s->ifm2.use_scalar) rc = mx_npu_fm_bind(x, &s->ifm2.fm, "IFM2", &ifm2);
  if (rc == 0) rc = mx_npu_fm_bind(x, &s->ofm.fm, "OFM", &ofm);
  if (rc == 0) rc = mx_npu_activation_setup(x, &ofm, &act);
  if (rc != 0) return rc;
  int64_t ifm_zp = mx_npu_zero_point(&s->ifm.fm), ifm2_zp = mx_npu_zero_point(&s->ifm2.fm);
  int64_t ofm_zp = mx_npu_zero_point(&s->ofm.fm);
  int ifm2_unsigned = s->ifm2.fm.dtype == MX_NPU_DTYPE_U8 || s->ifm2.fm.dtype == MX_NPU_DTYPE_U16;
  int64_t scalar = ifm2_unsigned ? (int64_t)(uint16_t)s->ifm2.scalar : (int64_t)s->ifm2.scalar;

  for (int y = 0; y < oh; y++) {
    for (int xx = 0; xx < ow; xx++) {
      for (int c = 0; c < oc; c++) {
        int64_t a, b = 0, r;
        rc = mx_npu_fm_read(x, &ifm, y, xx, c, &a);
        if (rc != 0) return rc;
        a -= ifm_zp;
        if (!unary) {
          if (s->ifm2.use_scalar) {
            b = scalar;
          } else {
            rc = mx_npu_fm_read(x, &ifm2, s->ifm2.broadcast_h ? 0 : y, s->ifm2.broadcast_w ? 0 : xx,
                                s->ifm2.broadcast_c ? 0 : c, &b);
            if (rc != 0) return rc;
          }
          b -= ifm2_zp;
          if (s->ifm2.reversed) {
            int64_t t = a;
            a = b;
            b = t;
          }
        }
        switch (mode) {
          case MX_NPU_ELEMENTWISE_ADD:
          case MX_NPU_ELEMENTWISE_SUB:
            if (scale_mode == MX_NPU_SCALE_MODE_OPA_32BIT) {
              a = mx_npu_rescale(a, s->opa_scale.scale, s->opa_scale.shift, s->ifm.rounding);
              b *= (int64_t)1 << UNSCALED_SHIFT;
            } else if (scale_mode == MX_NPU_SCALE_MODE_OPB_32BIT) {
              b = mx_npu_rescale(b, s->opa_scale.scale, s->opa_scale.shift, s->ifm.rounding);
              a *= (int64_t)1 << UNSCALED_SHIFT;
            } else {
              a = mx_npu_rescale(a, s->opa_scale.scale, s->opa_scale.shift, s->ifm.rounding);
              b = mx_npu_rescale(b, s->opb_scale, 0, s->ifm.rounding);
            }
            r = mode == MX_NPU_ELEMENTWISE_ADD ? mx_npu_add_saturate(a, b)
                                               : mx_npu_add_saturate(a, b == INT64_MIN ? INT64_MAX : -b);
            break;
          case MX_NPU_ELEMENTWISE_MUL: r = a * b; break; /* |a|, |b| < 2^33: no overflow */
          case MX_NPU_ELEMENTWISE_MIN: r = a < b ? a : b; break;
          case MX_NPU_ELEMENTWISE_MAX: r = a > b ? a : b; break;
          case MX_NPU_ELEMENTWISE_ABS: r = a < 0 ? -a : a; break;
          case MX_NPU_ELEMENTWISE_CLZ: r = clz32((uint32_t)a); break;
          case MX_NPU_ELEMENTWISE_SHL: r = (int32_t)(uint32_t)((uint64_t)a << shift_amount(b)); break;
          case MX_NPU_ELEMENTWISE_SHR:
            if (s->ofm.rounding == MX_NPU_ROUNDING_NATURAL) {
              r = mx_npu_shift_right(a, (unsigned)shift_amount(b), MX_NPU_ROUNDING_NATURAL);
            } else if (s->ofm.rounding == MX_NPU_ROUNDING_TRUNCATE) {
              r = mx_npu_shift_right(a, (unsigned)shift_amount(b), MX_NPU_ROUNDING_TRUNCATE);
            } else {
              r = a >> shift_amount(b); /* TFL: floor, no rounding (regor's form of round = false) */
            }
            break;
          default:
            return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "ELEMENTWISE %s is not implemented",
                                    mode_name(mode));
        }
        if (scaled) r = mx_npu_rescale(r, s->ofm_scale.scale, s->ofm_scale.shift, s->ofm.rounding);
        r = mx_npu_add_saturate(r, ofm_zp);
        rc = mx_npu_fm_write(x, &ofm, y, xx, c, mx_npu_activation_apply(&act, r));
        if (rc != 0) return rc;
      }
    }
  }
  return 0;
}
