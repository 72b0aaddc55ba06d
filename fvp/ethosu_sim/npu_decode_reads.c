/* Which registers each operation reads, and the check that the stream wrote them before the operation
 * (npu_decode.c). */
#include "npu_decode_internal.h"

static const uint16_t register_opcode[MX_NPU_R_COUNT] = {
#define MX_NPU_OP(name, code, bits)
#define MX_NPU_SET0(name, code, bits) (code),
#define MX_NPU_SET1(name, code, bits) MX_NPU_CMD1 | (code),
#include "npu_opcodes.def"
#undef MX_NPU_OP
#undef MX_NPU_SET0
#undef MX_NPU_SET1
};

/* ---- what each operation reads -------------------------------------------------------------------------- */
#define R(name) MX_NPU_R_##name
static const uint8_t reads_block[] = {
    R(IFM_REGION),        R(IFM_BASE0),        R(IFM_BASE1),      R(IFM_BASE2),      R(IFM_BASE3),
    R(IFM_WIDTH0_M1),     R(IFM_HEIGHT0_M1),   R(IFM_HEIGHT1_M1), R(IFM_DEPTH_M1),   R(IFM_STRIDE_X),
    R(IFM_STRIDE_Y),      R(IFM_STRIDE_C),     R(IFM_ZERO_POINT), R(IFM_PRECISION),  R(IFM_UPSCALE),
    R(OFM_REGION),        R(OFM_BASE0),        R(OFM_BASE1),      R(OFM_BASE2),      R(OFM_BASE3),
    R(OFM_WIDTH0_M1),     R(OFM_HEIGHT0_M1),   R(OFM_HEIGHT1_M1), R(OFM_WIDTH_M1),   R(OFM_HEIGHT_M1),
    R(OFM_DEPTH_M1),      R(OFM_STRIDE_X),     R(OFM_STRIDE_Y),   R(OFM_STRIDE_C),   R(OFM_ZERO_POINT),
    R(OFM_PRECISION),     R(ACTIVATION),       R(ACTIVATION_MIN), R(ACTIVATION_MAX), R(OFM_BLK_WIDTH_M1),
    R(OFM_BLK_HEIGHT_M1), R(OFM_BLK_DEPTH_M1), R(IFM_IB_END),     R(AB_START),       R(ACC_FORMAT),
    R(BLOCKDEP)};
static const uint8_t reads_kernel[] = {R(KERNEL_WIDTH_M1), R(KERNEL_HEIGHT_M1), R(KERNEL_STRIDE), R(IFM_PAD_TOP),
                                       R(IFM_PAD_LEFT),    R(IFM_PAD_RIGHT),    R(IFM_PAD_BOTTOM)};
static const uint8_t reads_weights[] = {R(WEIGHT_REGION), R(WEIGHT_BASE), R(WEIGHT_LENGTH)};
static const uint8_t reads_scales[] = {R(SCALE_REGION), R(SCALE_BASE), R(SCALE_LENGTH)};
static const uint8_t reads_second_core[] = {R(WEIGHT1_BASE), R(WEIGHT1_LENGTH), R(SCALE1_BASE), R(SCALE1_LENGTH)};
static const uint8_t reads_ofm_scale[] = {R(OFM_SCALE)};
static const uint8_t reads_operand_scales[] = {R(OPA_SCALE), R(OPB_SCALE)};
static const uint8_t reads_ifm2[] = {R(IFM2_PRECISION), R(IFM2_BROADCAST), R(IFM2_ZERO_POINT)};
static const uint8_t reads_ifm2_scalar[] = {R(IFM2_SCALAR)};
static const uint8_t reads_ifm2_tensor[] = {R(IFM2_REGION),   R(IFM2_BASE0),     R(IFM2_BASE1),      R(IFM2_BASE2),
                                            R(IFM2_BASE3),    R(IFM2_WIDTH0_M1), R(IFM2_HEIGHT0_M1), R(IFM2_HEIGHT1_M1),
                                            R(IFM2_STRIDE_X), R(IFM2_STRIDE_Y),  R(IFM2_STRIDE_C),   R(IFM2_IB_START)};
static const uint8_t reads_dma[] = {R(DMA0_SRC_REGION), R(DMA0_SRC), R(DMA0_DST_REGION), R(DMA0_DST), R(DMA0_LEN)};
#undef R

static int require(const mx_npu_state *s, const site *c, const uint8_t *regs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!is_written(s, regs[i])) {
      return fail(c->err, MX_NPU_ERR_UNSET_REGISTER, c->at, c->opcode, c->word,
                  "reads %s, which the stream never wrote", mx_npu_opcode_name(register_opcode[regs[i]]));
    }
  }
  return 0;
}
#define REQUIRE(regs)                              \
  do {                                             \
    int rc_ = require(s, c, (regs), sizeof(regs)); \
    if (rc_ != 0) return rc_;                      \
  } while (0)

int mx_npu_check_reads(const mx_npu_state *s, const site *c, unsigned param) {
  switch (c->opcode) {
    case MX_NPU_OP_CONV:
    case MX_NPU_OP_DEPTHWISE:
      REQUIRE(reads_block);
      REQUIRE(reads_kernel);
      REQUIRE(reads_weights);
      if (s->parallel_mode != 0) REQUIRE(reads_second_core);
      if (s->ofm.global_scale) {
        REQUIRE(reads_ofm_scale);
      } else {
        REQUIRE(reads_scales);
      }
      return 0;
    case MX_NPU_OP_POOL:
      REQUIRE(reads_block);
      REQUIRE(reads_kernel);
      if (s->ofm.global_scale) REQUIRE(reads_ofm_scale);
      return 0;
    case MX_NPU_OP_ELEMENTWISE:
      REQUIRE(reads_block);
      REQUIRE(reads_ofm_scale);
      if (param == MX_NPU_ELEMENTWISE_ADD || param == MX_NPU_ELEMENTWISE_SUB) REQUIRE(reads_operand_scales);
      if (param != MX_NPU_ELEMENTWISE_ABS && param != MX_NPU_ELEMENTWISE_LRELU && param != MX_NPU_ELEMENTWISE_CLZ) {
        REQUIRE(reads_ifm2);
        if (s->ifm2.use_scalar) {
          REQUIRE(reads_ifm2_scalar);
        } else {
          REQUIRE(reads_ifm2_tensor);
        }
      }
      return 0;
    case MX_NPU_OP_DMA_START: REQUIRE(reads_dma); return 0;
    default: return 0;
  }
}
#undef REQUIRE
