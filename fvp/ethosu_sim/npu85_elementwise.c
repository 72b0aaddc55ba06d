/* Ethos-U85 NPU_OP_ELEMENTWISE: per OFM element, A = IFM - zero point and B = IFM2 - zero point (IFM2 may be broadcast
 * in H, W, C, or be OP_SCALAR: IFM2_BROADCAST mode SCALAR; the IFM may be broadcast, or be OP_SCALAR, too; either may
 * be the previous operation's CHAINED OFM), each scaled by its own register (IFM_SCALE, IFM2_SCALE: 31-bit scale
 * and shift, round_mode_ifm), the mode's arithmetic, the OFM scale when OFM_PRECISION's global-scale bit is set
 * (OFM_SCALE's rounding), the OFM zero point, the activation.
 *
 * Operand scaling *inferred* from what regor writes for an 8-bit ADD: the rescaled operand's ratio in one register and
 * 2^19 (shift 0) in the other, the U55's OPA_32BIT form with both operands explicit; a unit scale (1, shift 0) for
 * the modes that do not rescale. A non-zero double-round shift (regor's AdvancedElementwiseAddSubScale) is refused.
 * SHR rounds as OFM_SCALE says: NATURAL halves up (TOSA round = true), TRUNCATE_TO_LOWER and DOUBLE_SYMMETRIC floor
 * (round = false). The modes our partitioner never sends and the tests cannot check against TOSA's reference (LSR,
 * DIV, LRELU, the comparisons, the bitwise ones) are refused by name. */
#include "npu85_exec.h"
#include "npu_round.h"
#include "npu_zero_point.h"

enum { MUL = 0, ADD, SUB, MIN, MAX, LRELU, ABS, CLZ, SHR, SHL, LSR, DIV, EQ = 16, NE, GE, GT };
enum { AND = 33, OR, XOR, NOT, AND_NOT = 42 };

static const char *mode_name(unsigned mode) {
  static const char *const names[20] = {"MUL", "ADD", "SUB",    "MIN",    "MAX",    "LRELU", "ABS",
                                        "CLZ", "SHR", "SHL",    "LSR",    "DIV",    "?",     "?",
                                        "?",   "?",   "CMP_EQ", "CMP_NE", "CMP_GE", "CMP_GT"};
  if (mode < 20) return names[mode];
  switch (mode) {
    case AND: return "AND";
    case OR: return "OR";
    case XOR: return "XOR";
    case NOT: return "NOT";
    case AND_NOT: return "AND_NOT";
    default: return "?";
  }
}

static int clz32(uint32_t v) {
  int n = 0;
  if (v == 0) return 32;
  while (!(v & 0x80000000u)) v <<= 1, n++;
  return n;
}

static int64_t amount(int64_t b) { return b < 0 ? 0 : b > 63 ? 63 : b; }

/* The operand rounding: round_mode_ifm DOUBLE_SYMMETRIC is the U55's TFL, NATURAL the same. */
static int64_t scale_operand(int64_t v, const mx_npu85_scale *s) {
  return mx_npu_rescale(v, s->scale, s->shift, s->round == 1 ? MX_NPU_ROUNDING_NATURAL : MX_NPU_ROUNDING_TFL);
}

static int compute(unsigned mode, unsigned round, int64_t a, int64_t b, int64_t *r) {
  switch (mode) {
    case ADD: *r = mx_npu_add_saturate(a, b); return 1;
    case SUB: *r = mx_npu_add_saturate(a, b == INT64_MIN ? INT64_MAX : -b); return 1;
    case MUL: *r = (int64_t)((uint64_t)a * (uint64_t)b); return 1; /* int32 operands: exact */
    case MIN: *r = a < b ? a : b; return 1;
    case MAX: *r = a > b ? a : b; return 1;
    case ABS: *r = a == INT64_MIN ? INT64_MAX : a < 0 ? -a : a; return 1;
    case CLZ: *r = clz32((uint32_t)a); return 1;
    case SHL: *r = (int32_t)(uint32_t)((uint64_t)a << amount(b)); return 1;
    case SHR:
      *r = round == 1   ? mx_npu_shift_right(a, (unsigned)amount(b), MX_NPU_ROUNDING_NATURAL)
           : round == 4 ? mx_npu_shift_right(a, (unsigned)amount(b), MX_NPU_ROUNDING_TRUNCATE)
                        : a >> amount(b);
      return 1;
    default: return 0; /* refused by name */
  }
}

int mx_npu85_exec_elementwise(mx_npu_exec *x) {
  const mx_npu_state *s = &x->op->state;
  const mx_npu85_regs *u = &s->u85;
  unsigned mode = x->op->param;
  int64_t probe;
  if (!compute(mode, 0, 0, 1, &probe)) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "ELEMENTWISE %s (%u) is not implemented", mode_name(mode),
                            mode);
  }
  if (u->ifm_scale.dbl_rnd != 0 || u->ifm2_scale.dbl_rnd != 0) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED,
                            "ELEMENTWISE %s with a double-round shift is not implemented", mode_name(mode));
  }
  int unary = mode == ABS || mode == CLZ;
  if (u->ifm2_storage != 0 && u->ifm2_storage != 2 && !unary && !s->ifm2.use_scalar) { /* NONE: scalar or unused */
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "ELEMENTWISE %s with IFM2 storage %s is not implemented",
                            mode_name(mode), u->ifm2_storage == 1 ? "TILE3X1" : "NONE");
  }
  if (u->ifm_broadcast == 8 && (s->ifm2.use_scalar || unary)) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "ELEMENTWISE %s with a scalar IFM and no IFM2 tensor",
                            mode_name(mode));
  }
  int shifts = mode == SHL || mode == SHR || mode == CLZ; /* no operand scaling */
  unsigned round = u->ofm_scale.round;
  int oh = s->ofm.height_m1 + 1, ow = s->ofm.width_m1 + 1, oc = s->ofm.depth_m1 + 1;
  mx_npu_fmview ifm, ifm2, ofm;
  mx_npu_activation_stage act;
  int rc = mx_npu85_bind(x, &ifm, &ofm, &act);
  if (rc == 0 && !unary && !s->ifm2.use_scalar) rc = mx_npu85_fm_bind(x, &s->ifm2.fm, u->ifm2_storage, "IFM2", &ifm2);
  if (rc != 0) return rc;
  int64_t ifm_zp = mx_npu_zero_point(&s->ifm.fm), ifm2_zp = mx_npu_zero_point(&s->ifm2.fm);
  int64_t ofm_zp = mx_npu_zero_point(&s->ofm.fm);
  int bh = u->ifm_broadcast & 1u, bw = (u->ifm_broadcast >> 1) & 1u, bc = (u->ifm_broadcast >> 2) & 1u;

  for (int y = 0; y < oh; y++) {
    for (int xx = 0; xx < ow; xx++) {
      for (int c = 0; c < oc; c++) {
        int64_t a, b = 0, r = 0;
        if (u->ifm_broadcast == 8) {
          a = u->op_scalar; /* IFM broadcast SCALAR: the scalar is the first operand */
        } else {
          rc = mx_npu_fm_read(x, &ifm, bh ? 0 : y, bw ? 0 : xx, bc ? 0 : c, &a);
          if (rc != 0) return rc;
        }
        a -= ifm_zp;
        if (!unary) {
          if (s->ifm2.use_scalar) {
            b = u->op_scalar;
          } else {
            rc = mx_npu_fm_read(x, &ifm2, s->ifm2.broadcast_h ? 0 : y, s->ifm2.broadcast_w ? 0 : xx,
                                s->ifm2.broadcast_c ? 0 : c, &b);
            if (rc != 0) return rc;
          }
          b -= ifm2_zp;
        }
        if (!shifts) {
          a = scale_operand(a, &u->ifm_scale);
          if (!unary) b = scale_operand(b, &u->ifm2_scale);
        }
        compute(mode, round, a, b, &r);
        if (s->ofm.global_scale) r = mx_npu_rescale(r, s->ofm_scale.scale, s->ofm_scale.shift, s->ofm.rounding);
        r = mx_npu_add_saturate(r, ofm_zp);
        rc = mx_npu_ofm_write(x, &ofm, y, xx, c, mx_npu_activation_apply(&act, r));
        if (rc != 0) return rc;
      }
    }
  }
  return 0;
}
