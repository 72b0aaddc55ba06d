/* Activation and clamp (npu_activation.h).
 *
 * Order, as we model it: v = scaled result + OFM zero point; with a table, v saturates to int8 and is
 * replaced by table[v + 128] (Vela stores TOSA's TABLE in its own order: entry 0 for input -128); then v is
 * clamped to the clip range intersected with ACTIVATION_MIN/MAX. The min/max registers are 16 bits and
 * clamp 8- and 16-bit OFMs only: regor writes -32768/32767 for an int32 OFM whose values are wider, so for a
 * 32-bit OFM the clamp is the int32 range (or the forced range of the clip field). */
#include "npu_activation.h"

#include "npu_round.h"

int mx_npu_activation_setup(mx_npu_exec *x, const mx_npu_fmview *ofm, mx_npu_activation_stage *a) {
  const mx_npu_state *s = &x->op->state;
  *a = (mx_npu_activation_stage){NULL, ofm->lo, ofm->hi};
  switch (s->activation.clip_range) {
    case MX_NPU_CLIP_FORCE_UINT8: a->lo = 0, a->hi = UINT8_MAX; break;
    case MX_NPU_CLIP_FORCE_INT8: a->lo = INT8_MIN, a->hi = INT8_MAX; break;
    case MX_NPU_CLIP_FORCE_INT16: a->lo = INT16_MIN, a->hi = INT16_MAX; break;
    default: break;
  }
  if (ofm->esize <= 2) {
    int64_t lo = ofm->is_signed ? (int64_t)s->activation.min : (int64_t)(uint16_t)s->activation.min;
    int64_t hi = ofm->is_signed ? (int64_t)s->activation.max : (int64_t)(uint16_t)s->activation.max;
    if (lo > a->lo) a->lo = lo;
    if (hi < a->hi) a->hi = hi;
  }
  unsigned f = s->activation.function;
  if (f == MX_NPU_ACTIVATION_NONE) return 0;
  if (f < MX_NPU_ACTIVATION_LUT_0) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "activation %s is not implemented",
                            f == MX_NPU_ACTIVATION_TANH ? "TANH" : "SIGMOID");
  }
  unsigned slot = f - MX_NPU_ACTIVATION_LUT_0;
  int int8_table =
      ofm->fm->dtype == MX_NPU_DTYPE_S8 || (ofm->esize == 4 && s->activation.clip_range == MX_NPU_CLIP_FORCE_INT8);
  if (!int8_table) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED,
                            "activation LUT_%u with a %u-byte OFM (only int8 tables are implemented)", slot,
                            ofm->esize);
  }
  if (x->lut_base < 0) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_OUT_OF_BOUNDS, "activation LUT_%u: no table was loaded into SHRAM", slot);
  }
  a->lut = x->shram + x->lut_base + slot * MX_NPU_LUT_SLOT_BYTES;
  return 0;
}

int64_t mx_npu_activation_apply(const mx_npu_activation_stage *a, int64_t v) {
  if (a->lut != NULL) v = (int8_t)a->lut[mx_npu_saturate(v, INT8_MIN, INT8_MAX) + 128];
  return mx_npu_saturate(v, a->lo, a->hi);
}

int mx_npu_activation_bind_ifm_ofm(mx_npu_exec *x, mx_npu_fmview *ifm, mx_npu_fmview *ofm, mx_npu_activation_stage *a) {
  const mx_npu_state *s = &x->op->state;
  int rc = mx_npu_fm_bind(x, &s->ifm.fm, "IFM", ifm);
  if (rc == 0) rc = mx_npu_fm_bind(x, &s->ofm.fm, "OFM", ofm);
  if (rc == 0) rc = mx_npu_activation_setup(x, ofm, a);
  return rc;
}
