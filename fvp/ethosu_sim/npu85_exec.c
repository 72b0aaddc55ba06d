/* The Ethos-U85 side of mx_npu_execute_config (OPTIMIZER_CONFIG product 2): its stream's loop (npu85_decode.c, op
 * by op in stream order, as for the U55), the output stage as the U85's ACTIVATION register describes it, and its
 * DMA. What the U85 can do and this executor does not is refused by the command's and the mode's name. */
#include <string.h>

#include "npu85_exec.h"

#define CHAINED 2 /* activation_storage */

static const char *const function_names[12] = {"LUT_NONE",    "LUT_U8_U8",   "?",        "?",
                                               "LUT_S8_S8",   "LUT_S8_S16",  "?",        "LUT_S8_S32",
                                               "LUT_S16_S16", "LUT_S16_S32", "LUT_TANH", "LUT_SIGMOID"};

/* The U85's output stage: an int8 table (LUT_S8_S8: the OFM value saturated to int8 indexes table t's 256 bytes at
 * t x 256 of the LUT memory, where the DMA put it), then the clamp: the OFM type's range, narrowed to
 * ACTIVATION_MIN/MAX unless the clip range is NONE (regor writes NONE when the OFM has no narrower bound). */
int mx_npu85_activation_setup(mx_npu_exec *x, const mx_npu_fmview *ofm, mx_npu_activation_stage *a) {
  const mx_npu_state *s = &x->op->state;
  const mx_npu85_regs *u = &s->u85;
  *a = (mx_npu_activation_stage){NULL, ofm->lo, ofm->hi};
  if (u->act_clip == 0) {
    int64_t lo = ofm->is_signed ? (int64_t)s->activation.min : (int64_t)(uint16_t)s->activation.min;
    int64_t hi = ofm->is_signed ? (int64_t)s->activation.max : (int64_t)(uint16_t)s->activation.max;
    if (lo > a->lo) a->lo = lo;
    if (hi < a->hi) a->hi = hi;
  }
  if (u->act_function == 0) return 0;
  if (u->act_function != 4 || ofm->fm->dtype != MX_NPU_DTYPE_S8) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "activation %s with a %u-byte OFM is not implemented",
                            function_names[u->act_function], ofm->esize);
  }
  a->lut = x->shram + (size_t)u->act_table * MX_NPU_LUT_SLOT_BYTES;
  return 0;
}

int mx_npu85_bind(mx_npu_exec *x, mx_npu_fmview *ifm, mx_npu_fmview *ofm, mx_npu_activation_stage *act) {
  const mx_npu_state *s = &x->op->state;
  const mx_npu85_regs *u = &s->u85;
  static const char *const storage[4] = {"TILE2X2", "TILE3X1", "CHAINED", "NONE"};
  int scalar_ifm = u->ifm_storage == 3 && u->ifm_broadcast == 8; /* storage NONE: the IFM is OP_SCALAR */
  if ((u->ifm_storage != 0 && u->ifm_storage != CHAINED && !scalar_ifm) ||
      (u->ofm_storage != 0 && u->ofm_storage != CHAINED)) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "feature-map storage %s is not implemented",
                            storage[u->ifm_storage != 0 ? u->ifm_storage : u->ofm_storage]);
  }
  if (u->ofm_reverse != 0) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "OFM reverse %s is not implemented",
                            u->ofm_reverse == 1   ? "H"
                            : u->ofm_reverse == 2 ? "W"
                                                  : "C");
  }
  if (u->ifm_upscale != 0) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "IFM upscale mode %s is not implemented",
                            u->ifm_upscale == 1 ? "NEAREST" : "ZEROS");
  }
  /* regor rescales 32-bit data with a 1x1 POOL NONE whose accumulator is loaded from IFM2 (npu85_pool.c) */
  int acc_from_ifm2 = x->op->opcode == MX_NPU_OP_POOL && x->op->param == 4 && u->acc_input == 2;
  if ((u->acc_input != 0 && !acc_from_ifm2) || u->acc_output != 0) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "accumulator %s is not implemented (chaining)",
                            u->acc_input == 1   ? "input KEEP"
                            : u->acc_input == 2 ? "input IFM2"
                                                : "output DISABLE");
  }
  if (u->ifm_broadcast != 0 && x->op->opcode != MX_NPU_OP_ELEMENTWISE) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "an IFM broadcast (mode %u) is not implemented here",
                            (unsigned)u->ifm_broadcast);
  }
  if (u->ofm_scale.dbl_rnd != 0) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "an OFM double-round shift (%u) is not implemented",
                            (unsigned)u->ofm_scale.dbl_rnd);
  }
  if (u->ofm_scale.round == 2 || u->ofm_scale.round == 3) {
    static const char *const modes[4] = {"", "", "DOUBLE_ASYMMETRIC", "SYMMETRIC"};
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "OFM rounding %s is not implemented",
                            modes[u->ofm_scale.round]);
  }
  int rc = ifm != NULL ? mx_npu85_fm_bind(x, &s->ifm.fm, u->ifm_storage, "IFM", ifm) : 0;
  if (rc == 0) rc = mx_npu85_fm_bind(x, &s->ofm.fm, u->ofm_storage, "OFM", ofm);
  if (rc == 0) rc = mx_npu85_activation_setup(x, ofm, act);
  return rc;
}

/* Storage CHAINED: regor fuses an operation with the next one by keeping the first one's OFM inside the NPU (OFM
 * storage CHAINED) and reading it as the next one's IFM or IFM2 (storage CHAINED), regions and addresses unused. We
 * keep it in x->chain (values of up to 32 bits) in the producer's OFM shape, for the next block operation only.
 * Storage NONE (a scalar or unused operand) has no elements: its view has no memory, so a read is an error. */
int mx_npu85_fm_bind(mx_npu_exec *x, const mx_npu_fm *fm, unsigned storage, const char *name, mx_npu_fmview *v) {
  const mx_npu_state *s = &x->op->state;
  if (storage == 0) return mx_npu_fm_bind(x, fm, name, v);
  mx_npu_fm_bind_unplaced(fm, name, v);
  if (storage != CHAINED) return 0;
  if (fm == &s->ofm.fm) {
    int h = s->ofm.height_m1 + 1, w = s->ofm.width_m1 + 1, c = s->ofm.depth_m1 + 1;
    if (s->u85.ofm_transpose != 0) {
      return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "a CHAINED OFM with a transpose is not implemented");
    }
    if ((uint64_t)h * w * c > MX_NPU_CHAIN_ELEMENTS) {
      return mx_npu_exec_fail(x, MX_NPU_ERR_TOO_LARGE, "a CHAINED OFM of %dx%dx%d elements (the executor holds %d)", h,
                              w, c, MX_NPU_CHAIN_ELEMENTS);
    }
    x->chain_out = x->chain_in == 0 ? 1 : 0;
    mx_npu_chain *k = &x->chains[x->chain_out];
    k->h = h, k->w = w, k->c = c;
    v->chain = k;
    return 0;
  }
  if (x->chain_in < 0) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "a CHAINED %s with no CHAINED OFM just before it", name);
  }
  v->chain = &x->chains[x->chain_in];
  return 0;
}

/* DMA_START: 1-D copies (DMA0_LEN bytes) between regions or into the LUT memory (the internal destination: the lookup
 * tables, x->shram from address 0 on the U85). regor writes 2-D/3-D strides and index mode for operations our
 * partitioner never sends (gathers, scatters): refused by name rather than run with guessed semantics. */
int mx_npu85_exec_dma(mx_npu_exec *x) {
  const mx_npu_state *s = &x->op->state;
  const mx_npu85_regs *u = &s->u85;
  if (u->src_idx_mode || u->dst_idx_mode) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "DMA index mode is not implemented");
  }
  if (s->dma.src_internal) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "DMA from the internal memory is not implemented");
  }
  if (s->dma.src_stride_mode != MX_NPU_STRIDE_MODE_1D) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "DMA stride mode %s is not implemented (only 1D)",
                            s->dma.src_stride_mode == MX_NPU_STRIDE_MODE_2D ? "2D" : "3D");
  }
  const uint8_t *from = mx_npu_span(x, s->dma.src_region, 0, s->dma.src, s->dma.len, "DMA source");
  if (from == NULL) return -(int)x->err->status;
  uint8_t *to = mx_npu_span(x, s->dma.dst_region, s->dma.dst_internal, s->dma.dst, s->dma.len, "DMA destination");
  if (to == NULL) return -(int)x->err->status;
  if (s->dma.len != 0) memmove(to, from, (size_t)s->dma.len);
  return 0;
}

static int op_is_block(unsigned opcode) {
  return opcode == MX_NPU_OP_CONV || opcode == MX_NPU_OP_DEPTHWISE || opcode == MX_NPU_OP_POOL ||
         opcode == MX_NPU_OP_ELEMENTWISE;
}

int mx_npu85_run(mx_npu_exec *x, const uint32_t *words, size_t count) {
  mx_npu_decoder d;
  mx_npu_decoder_init(&d, words, count);
  x->lut_base = 0;
  x->chain_in = -1;
  for (;;) {
    x->op = NULL;
    int rc = mx_npu85_decoder_next(&d, &x->current, x->err);
    if (rc <= 0) return rc;
    x->op = &x->current;
    x->chain_out = -1;
    switch (x->current.opcode) {
      case MX_NPU_OP_STOP:
      case MX_NPU_OP_DMA_WAIT:
      case MX_NPU_OP_KERNEL_WAIT:
      case MX_NPU_OP_PMU_MASK:
      case MX_NPU_OP_IRQ: rc = 0; break;
      case MX_NPU_OP_DMA_START: rc = mx_npu85_exec_dma(x); break;
      case MX_NPU_OP_CONV:
      case MX_NPU_OP_DEPTHWISE: rc = mx_npu85_exec_conv(x); break;
      case MX_NPU_OP_POOL: rc = mx_npu85_exec_pool(x); break;
      case MX_NPU_OP_ELEMENTWISE: rc = mx_npu85_exec_elementwise(x); break;
      default: rc = mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "operation not implemented"); break;
    }
    if (rc != 0) return rc;
    if (op_is_block(x->current.opcode)) x->chain_in = x->chain_out; /* a chain lasts one block operation */
  }
}
