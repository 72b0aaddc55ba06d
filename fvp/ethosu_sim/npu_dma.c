/* NPU_OP_DMA_START: a copy between regions, or from a region into the SHRAM (the internal bit of
 * DMA0_DST_REGION), where Vela puts lookup tables. Only the 1-D stride mode (DMA0_LEN contiguous bytes) is
 * implemented: it is the only one Vela 5.2 writes for Ethos-U55/U65 (regor's GenerateDMA). */
#include <string.h>

#include "npu_exec_state.h"

/* The SHRAM window that holds the lookup tables: its last two 1 KB banks. 16, 24 and 48 banks (Ethos-U55-32/64,
 * U55-128, U55-256 and U65) put it at disjoint addresses, so a table's destination tells which one. */
static int lut_window(uint64_t dst, uint64_t len) {
  static const uint32_t banks[] = {16, 24, 48};
  for (size_t i = 0; i < sizeof banks / sizeof banks[0]; i++) {
    uint64_t base = (uint64_t)banks[i] * 1024 - MX_NPU_LUT_BYTES;
    if (dst >= base && dst < base + MX_NPU_LUT_BYTES && len <= base + MX_NPU_LUT_BYTES - dst) return (int)base;
  }
  return -1;
}

int mx_npu_exec_dma(mx_npu_exec *x) {
  const mx_npu_state *s = &x->op->state;
  if (s->dma.src_stride_mode != MX_NPU_STRIDE_MODE_1D || s->dma.dst_stride_mode != MX_NPU_STRIDE_MODE_1D) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "DMA stride mode %s -> %s is not implemented (only 1D)",
                            s->dma.src_stride_mode == MX_NPU_STRIDE_MODE_1D   ? "1D"
                            : s->dma.src_stride_mode == MX_NPU_STRIDE_MODE_2D ? "2D"
                                                                              : "3D",
                            s->dma.dst_stride_mode == MX_NPU_STRIDE_MODE_1D   ? "1D"
                            : s->dma.dst_stride_mode == MX_NPU_STRIDE_MODE_2D ? "2D"
                                                                              : "3D");
  }
  if (x->op->param != 0) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "DMA channel/mode parameter 0x%04X is not implemented",
                            (unsigned)x->op->param);
  }
  uint64_t len = s->dma.len;
  if (s->dma.dst_internal) {
    int window = lut_window(s->dma.dst, len);
    if (window < 0 || (x->lut_base >= 0 && window != x->lut_base)) {
      return mx_npu_exec_fail(
          x, MX_NPU_ERR_NOT_IMPLEMENTED, "DMA into SHRAM at 0x%llx (+%llu) is outside the lookup-table banks%s",
          (unsigned long long)s->dma.dst, (unsigned long long)len, x->lut_base >= 0 ? " used so far" : "");
    }
    x->lut_base = window;
  }
  const uint8_t *src = mx_npu_span(x, s->dma.src_region, s->dma.src_internal, s->dma.src, len, "DMA source");
  if (src == NULL) return -(int)x->err->status;
  uint8_t *dst = mx_npu_span(x, s->dma.dst_region, s->dma.dst_internal, s->dma.dst, len, "DMA destination");
  if (dst == NULL) return -(int)x->err->status;
  if (len != 0) memmove(dst, src, (size_t)len);
  return 0;
}
