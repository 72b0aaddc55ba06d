/* Which registers each Ethos-U85 operation reads, and the check that the stream wrote them before it (npu85_decode.c):
 * a register left at its reset value is refused, not guessed, as for the U55 (npu_decode_reads.c). */
#include "npu85_decode_internal.h"

#define CHAINED 2 /* activation_storage: CHAINED 2, NONE 3 */

/* ---- what each operation reads ---------------------------------------------------------------------------- */
/* A feature map kept inside the NPU (storage CHAINED) or absent (NONE: a scalar or unused operand) has no address:
 * its region, base, tiles and strides are not read. */
static const uint8_t reads_block[] = {R85_IFM_DEPTH_M1,  R85_IFM_ZERO_POINT, R85_IFM_PRECISION,  R85_OFM_WIDTH_M1,
                                      R85_OFM_HEIGHT_M1, R85_OFM_DEPTH_M1,   R85_OFM_ZERO_POINT, R85_OFM_PRECISION,
                                      R85_ACTIVATION,    R85_ACTIVATION_MIN, R85_ACTIVATION_MAX, R85_ACC_FORMAT,
                                      R85_OFM_SCALE};
static const uint8_t reads_ifm_address[] = {R85_IFM_REGION,     R85_IFM_BASE0,    R85_IFM_WIDTH0_M1, R85_IFM_HEIGHT0_M1,
                                            R85_IFM_HEIGHT1_M1, R85_IFM_STRIDE_X, R85_IFM_STRIDE_Y};
static const uint8_t reads_ofm_address[] = {R85_OFM_REGION,     R85_OFM_BASE0,    R85_OFM_WIDTH0_M1, R85_OFM_HEIGHT0_M1,
                                            R85_OFM_HEIGHT1_M1, R85_OFM_STRIDE_X, R85_OFM_STRIDE_Y};
static const uint8_t reads_kernel[] = {R85_KERNEL_WIDTH_M1, R85_KERNEL_HEIGHT_M1, R85_KERNEL_STRIDE, R85_IFM_PAD_TOP,
                                       R85_IFM_PAD_LEFT,    R85_IFM_PAD_RIGHT,    R85_IFM_PAD_BOTTOM};
static const uint8_t reads_weights[] = {R85_WEIGHT_REGION, R85_WEIGHT_BASE, R85_WEIGHT_LENGTH, R85_WEIGHT_FORMAT,
                                        R85_SCALE_REGION,  R85_SCALE_BASE,  R85_SCALE_LENGTH,  R85_OFM_BLK_DEPTH_M1};
static const uint8_t reads_ifm2[] = {R85_IFM2_BROADCAST, R85_IFM2_PRECISION, R85_IFM2_ZERO_POINT};
static const uint8_t reads_ifm2_type[] = {R85_IFM2_PRECISION, R85_IFM2_ZERO_POINT};
static const uint8_t reads_ifm2_tensor[] = {R85_IFM2_REGION,     R85_IFM2_BASE0,      R85_IFM2_WIDTH0_M1,
                                            R85_IFM2_HEIGHT0_M1, R85_IFM2_HEIGHT1_M1, R85_IFM2_STRIDE_X,
                                            R85_IFM2_STRIDE_Y};
static const uint8_t reads_dma[] = {R85_DMA0_SRC_REGION, R85_DMA0_SRC, R85_DMA0_DST_REGION, R85_DMA0_DST, R85_DMA0_LEN};

static const char *const register_names[R85_COUNT] = {
#define MX_NPU85_OP(name, code, bits)
#define MX_NPU85_SET0(name, code, bits) "NPU_SET_" #name,
#define MX_NPU85_SET1(name, code, bits) "NPU_SET_" #name,
#include "npu85_opcodes.def"
#undef MX_NPU85_OP
#undef MX_NPU85_SET0
#undef MX_NPU85_SET1
};

static int require(const mx_npu_state *s, const site *c, const uint8_t *regs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!((s->u85.written[regs[i] / 32] >> (regs[i] % 32)) & 1u)) {
      return fail(c->err, MX_NPU_ERR_UNSET_REGISTER, c->at, c->opcode | MX_NPU_U85_OPCODE, c->word,
                  "reads %s, which the stream never wrote", register_names[regs[i]]);
    }
  }
  return 0;
}
#define REQUIRE(regs)                              \
  do {                                             \
    int rc_ = require(s, c, (regs), sizeof(regs)); \
    if (rc_ != 0) return rc_;                      \
  } while (0)

int mx_npu85_check_reads(const mx_npu_state *s, const site *c, unsigned param) {
  switch (c->opcode) {
    case MX_NPU_OP_CONV:
    case MX_NPU_OP_DEPTHWISE:
    case MX_NPU_OP_POOL:
    case MX_NPU_OP_ELEMENTWISE:
      REQUIRE(reads_block);
      if (s->u85.ifm_storage < CHAINED) REQUIRE(reads_ifm_address);
      if (s->u85.ofm_storage < CHAINED) REQUIRE(reads_ofm_address);
      break;
    default: break;
  }
  switch (c->opcode) {
    case MX_NPU_OP_CONV:
    case MX_NPU_OP_DEPTHWISE:
      REQUIRE(reads_kernel);
      REQUIRE(reads_weights);
      return 0;
    case MX_NPU_OP_POOL:
      REQUIRE(reads_kernel);
      if (s->u85.acc_input == 2) { /* the accumulator from IFM2 (npu85_pool.c): no broadcast */
        REQUIRE(reads_ifm2_type);
        if (s->u85.ifm2_storage < CHAINED) REQUIRE(reads_ifm2_tensor);
      }
      return 0;
    case MX_NPU_OP_ELEMENTWISE:
      if (param != MX_NPU_ELEMENTWISE_ABS && param != MX_NPU_ELEMENTWISE_CLZ && param != 36 /* NOT */) {
        REQUIRE(reads_ifm2);
        if (!s->ifm2.use_scalar && s->u85.ifm2_storage < CHAINED) REQUIRE(reads_ifm2_tensor);
      }
      return 0;
    case MX_NPU_OP_DMA_START: REQUIRE(reads_dma); return 0;
    default: return 0;
  }
}
#undef REQUIRE
