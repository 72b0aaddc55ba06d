/* Command words -> register state -> operations (npu_commands.h). */
#include "npu_decode_internal.h"

#include <string.h>

#define OPCODE_BITS 0x3FFu
#define RESERVED_WORD_BITS 0x3C00u /* command bits 10-13 */
#define PAYLOAD_SHIFT 14

typedef struct {
  const char *name;
  uint16_t param_bits; /* npu_opcodes.def's PARAM_BITS */
  int reg;             /* mx_npu_reg, or -1 for an operation */
} command_info;

static int command_lookup(unsigned opcode, command_info *info) {
  switch (opcode) {
#define MX_NPU_OP(name, code, bits) \
  case (code): *info = (command_info){"NPU_OP_" #name, (bits), -1}; return 1;
#define MX_NPU_SET0(name, code, bits) \
  case (code): *info = (command_info){"NPU_SET_" #name, (bits), MX_NPU_R_##name}; return 1;
#define MX_NPU_SET1(name, code, bits) \
  case MX_NPU_CMD1 | (code): *info = (command_info){"NPU_SET_" #name, (bits), MX_NPU_R_##name}; return 1;
#include "npu_opcodes.def"
#undef MX_NPU_OP
#undef MX_NPU_SET0
#undef MX_NPU_SET1
    default: return 0;
  }
}

const char *mx_npu_opcode_name(unsigned opcode) {
  command_info info;
  if (opcode & MX_NPU_U85_OPCODE) return mx_npu85_opcode_name(opcode & ~MX_NPU_U85_OPCODE);
  return command_lookup(opcode, &info) ? info.name : NULL;
}

const char *mx_npu_status_text(int status) {
  switch (status < 0 ? 0u - (unsigned)status : (unsigned)status) {
#define MX_NPU_STATUS(name, code, text) \
  case (code##u): return text;
#include "npu_errors.def"
#undef MX_NPU_STATUS
    default: return "unknown command-stream decoder status";
  }
}

size_t mx_npu_op_size(void) { return sizeof(mx_npu_op); }

int mx_npu_written(const mx_npu_state *state, unsigned opcode) {
  command_info info;
  if (state == NULL || !command_lookup(opcode, &info) || info.reg < 0) return -1;
  return is_written(state, info.reg);
}

/* ---- enumerations --------------------------------------------------------------------------------------- */
#define VALUE_CASE(type, name, value) case (value):
#define IS_MEMBER(what, list)        \
  static int is_##what(unsigned v) { \
    switch (v) {                     \
      list(VALUE_CASE) return 1;     \
      default: return 0;             \
    }                                \
  }
IS_MEMBER(layout, MX_NPU_LAYOUT_LIST)
IS_MEMBER(pooling, MX_NPU_POOLING_LIST)
IS_MEMBER(elementwise, MX_NPU_ELEMENTWISE_LIST)
IS_MEMBER(activation, MX_NPU_ACTIVATION_LIST)
IS_MEMBER(clip, MX_NPU_CLIP_LIST)
IS_MEMBER(acc, MX_NPU_ACC_LIST)
IS_MEMBER(resampling, MX_NPU_RESAMPLING_LIST)
IS_MEMBER(rounding, MX_NPU_ROUNDING_LIST)
IS_MEMBER(scale_mode, MX_NPU_SCALE_MODE_LIST)
IS_MEMBER(stride_mode, MX_NPU_STRIDE_MODE_LIST)

static int bad_value(const site *c, const char *field, unsigned value) {
  return fail(c->err, MX_NPU_ERR_BAD_VALUE, c->at, c->opcode, c->word, "%s %u is not a value the hardware defines",
              field, value);
}

/* An element type from a precision register: signed bit `is_signed`, size code (0: 8, 1: 16, 2: 32 bits).
 * Vela's ifm_precision/ofm_precision define no unsigned 32-bit type. */
static int dtype_of(const site *c, unsigned is_signed, unsigned size, uint8_t *dtype) {
  static const uint8_t types[3][2] = {
      {MX_NPU_DTYPE_U8, MX_NPU_DTYPE_S8}, {MX_NPU_DTYPE_U16, MX_NPU_DTYPE_S16}, {0, MX_NPU_DTYPE_S32}};
  if (size > 2 || (size == 2 && !is_signed)) {
    return fail(c->err, MX_NPU_ERR_BAD_VALUE, c->at, c->opcode, c->word,
                "precision: size code %u%s is not a type the hardware defines", size, is_signed ? " signed" : "");
  }
  *dtype = types[size][is_signed];
  return 0;
}

static int layout_of(const site *c, unsigned v, uint8_t *layout) {
  if (!is_layout(v)) return bad_value(c, "data format", v);
  *layout = (uint8_t)v;
  return 0;
}

static int rounding_of(const site *c, unsigned v, uint8_t *rounding) {
  if (!is_rounding(v)) return bad_value(c, "rounding", v);
  *rounding = (uint8_t)v;
  return 0;
}

static int dma_region(const site *c, unsigned p, uint8_t *region, uint8_t *internal, uint8_t *stride_mode) {
  unsigned mode = (p >> 9) & 3u;
  if (!is_stride_mode(mode)) return bad_value(c, "stride mode", mode);
  *region = (uint8_t)(p & 7u);
  *internal = (uint8_t)((p >> 8) & 1u);
  *stride_mode = (uint8_t)mode;
  return 0;
}

/* ---- register writes ----------------------------------------------------------------------------------- */
static int set0(mx_npu_state *s, const site *c, unsigned p) {
  switch (c->opcode) {
    case MX_NPU_SET_IFM_PAD_TOP: s->ifm.pad_top = (uint8_t)p; return 0;
    case MX_NPU_SET_IFM_PAD_LEFT: s->ifm.pad_left = (uint8_t)p; return 0;
    case MX_NPU_SET_IFM_PAD_RIGHT: s->ifm.pad_right = (uint8_t)p; return 0;
    case MX_NPU_SET_IFM_PAD_BOTTOM: s->ifm.pad_bottom = (uint8_t)p; return 0;
    case MX_NPU_SET_IFM_DEPTH_M1: s->ifm.depth_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_IFM_PRECISION: {
      unsigned scale_mode = (p >> 8) & 3u;
      uint8_t dtype = 0, layout = 0, rounding = 0;
      if (!is_scale_mode(scale_mode)) return bad_value(c, "scale mode", scale_mode);
      int rc = dtype_of(c, p & 1u, (p >> 2) & 3u, &dtype);
      if (rc == 0) rc = layout_of(c, (p >> 6) & 3u, &layout);
      if (rc == 0) rc = rounding_of(c, (p >> 14) & 3u, &rounding);
      if (rc != 0) return rc;
      s->ifm.fm.dtype = dtype;
      s->ifm.fm.layout = layout;
      s->ifm.scale_mode = (uint8_t)scale_mode;
      s->ifm.rounding = rounding;
      return 0;
    }
    case MX_NPU_SET_IFM_UPSCALE:
      if (!is_resampling(p)) return bad_value(c, "resampling mode", p);
      s->ifm.upscale = (uint8_t)p;
      return 0;
    case MX_NPU_SET_IFM_ZERO_POINT: s->ifm.fm.zero_point = (int16_t)p; return 0;
    case MX_NPU_SET_IFM_WIDTH0_M1: s->ifm.fm.width0_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_IFM_HEIGHT0_M1: s->ifm.fm.height0_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_IFM_HEIGHT1_M1: s->ifm.fm.height1_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_IFM_IB_END: s->ifm.ib_end = (uint16_t)p; return 0;
    case MX_NPU_SET_IFM_REGION: s->ifm.fm.region = (uint8_t)p; return 0;
    case MX_NPU_SET_OFM_WIDTH_M1: s->ofm.width_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_OFM_HEIGHT_M1: s->ofm.height_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_OFM_DEPTH_M1: s->ofm.depth_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_OFM_PRECISION: {
      uint8_t dtype = 0, layout = 0, rounding = 0;
      int rc = dtype_of(c, p & 1u, (p >> 1) & 3u, &dtype);
      if (rc == 0) rc = layout_of(c, (p >> 6) & 3u, &layout);
      if (rc == 0) rc = rounding_of(c, (p >> 14) & 3u, &rounding);
      if (rc != 0) return rc;
      s->ofm.fm.dtype = dtype;
      s->ofm.fm.layout = layout;
      s->ofm.global_scale = (uint8_t)((p >> 8) & 1u);
      s->ofm.rounding = rounding;
      return 0;
    }
    case MX_NPU_SET_OFM_BLK_WIDTH_M1: s->ofm.blk_width_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_OFM_BLK_HEIGHT_M1: s->ofm.blk_height_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_OFM_BLK_DEPTH_M1: s->ofm.blk_depth_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_OFM_ZERO_POINT: s->ofm.fm.zero_point = (int16_t)p; return 0;
    case MX_NPU_SET_OFM_WIDTH0_M1: s->ofm.fm.width0_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_OFM_HEIGHT0_M1: s->ofm.fm.height0_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_OFM_HEIGHT1_M1: s->ofm.fm.height1_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_OFM_REGION: s->ofm.fm.region = (uint8_t)p; return 0;
    case MX_NPU_SET_KERNEL_WIDTH_M1: s->kernel.width_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_KERNEL_HEIGHT_M1: s->kernel.height_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_KERNEL_STRIDE:
      s->kernel.stride_x = (uint8_t)(1u + ((p & 1u) | ((p >> 6) & 1u) << 1));
      s->kernel.stride_y = (uint8_t)(1u + (((p >> 1) & 1u) | ((p >> 9) & 1u) << 1));
      s->kernel.part_kernel_first = (uint8_t)((p >> 2) & 1u);
      s->kernel.dilation_x = (uint8_t)(1u + ((p >> 3) & 1u));
      s->kernel.dilation_y = (uint8_t)(1u + ((p >> 4) & 1u));
      return 0;
    case MX_NPU_SET_PARALLEL_MODE: s->parallel_mode = (uint16_t)p; return 0;
    case MX_NPU_SET_ACC_FORMAT:
      if (!is_acc(p)) return bad_value(c, "accumulator format", p);
      s->acc_format = (uint8_t)p;
      return 0;
    case MX_NPU_SET_ACTIVATION: {
      unsigned function = p & 0x1Fu, clip = (p >> 12) & 7u;
      if (!is_activation(function)) return bad_value(c, "activation", function);
      if (!is_clip(clip)) return bad_value(c, "clip range", clip);
      s->activation.function = (uint8_t)function;
      s->activation.clip_range = (uint8_t)clip;
      return 0;
    }
    case MX_NPU_SET_ACTIVATION_MIN: s->activation.min = (int16_t)p; return 0;
    case MX_NPU_SET_ACTIVATION_MAX: s->activation.max = (int16_t)p; return 0;
    case MX_NPU_SET_WEIGHT_REGION: s->weight.region = (uint8_t)p; return 0;
    case MX_NPU_SET_SCALE_REGION: s->scale.region = (uint8_t)p; return 0;
    case MX_NPU_SET_AB_START: s->ab_start = (uint16_t)p; return 0;
    case MX_NPU_SET_BLOCKDEP: s->blockdep = (uint16_t)p; return 0;
    case MX_NPU_SET_DMA0_SRC_REGION:
      return dma_region(c, p, &s->dma.src_region, &s->dma.src_internal, &s->dma.src_stride_mode);
    case MX_NPU_SET_DMA0_DST_REGION:
      return dma_region(c, p, &s->dma.dst_region, &s->dma.dst_internal, &s->dma.dst_stride_mode);
    case MX_NPU_SET_DMA0_SIZE0: s->dma.size0 = (uint16_t)p; return 0;
    case MX_NPU_SET_DMA0_SIZE1: s->dma.size1 = (uint16_t)p; return 0;
    case MX_NPU_SET_IFM2_BROADCAST:
      s->ifm2.broadcast_h = (uint8_t)(p & 1u);
      s->ifm2.broadcast_w = (uint8_t)((p >> 1) & 1u);
      s->ifm2.broadcast_c = (uint8_t)((p >> 2) & 1u);
      s->ifm2.reversed = (uint8_t)((p >> 6) & 1u);
      s->ifm2.use_scalar = (uint8_t)((p >> 7) & 1u);
      return 0;
    case MX_NPU_SET_IFM2_SCALAR: s->ifm2.scalar = (int16_t)p; return 0;
    case MX_NPU_SET_IFM2_PRECISION: {
      uint8_t dtype = 0, layout = 0;
      int rc = dtype_of(c, p & 1u, (p >> 2) & 3u, &dtype);
      if (rc == 0) rc = layout_of(c, (p >> 6) & 3u, &layout);
      if (rc != 0) return rc;
      s->ifm2.fm.dtype = dtype;
      s->ifm2.fm.layout = layout;
      return 0;
    }
    case MX_NPU_SET_IFM2_ZERO_POINT: s->ifm2.fm.zero_point = (int16_t)p; return 0;
    case MX_NPU_SET_IFM2_WIDTH0_M1: s->ifm2.fm.width0_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_IFM2_HEIGHT0_M1: s->ifm2.fm.height0_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_IFM2_HEIGHT1_M1: s->ifm2.fm.height1_m1 = (uint16_t)p; return 0;
    case MX_NPU_SET_IFM2_IB_START: s->ifm2.ib_start = (uint16_t)p; return 0;
    case MX_NPU_SET_IFM2_REGION: s->ifm2.fm.region = (uint8_t)p; return 0;
    default: break;
  }
  /* command_lookup() found the opcode in npu_opcodes.def: a SET0 there without a case here. */
  return fail(c->err, MX_NPU_ERR_UNKNOWN_OPCODE, c->at, c->opcode, c->word, "listed but not decoded");
}

static int set1(mx_npu_state *s, const site *c, unsigned p, uint32_t payload) {
  uint64_t address = (uint64_t)payload | (uint64_t)p << 32; /* a cmd1 address: bits 32-47 in the parameter */
  switch (c->opcode) {
    case MX_NPU_SET_IFM_BASE0: s->ifm.fm.base[0] = address; return 0;
    case MX_NPU_SET_IFM_BASE1: s->ifm.fm.base[1] = address; return 0;
    case MX_NPU_SET_IFM_BASE2: s->ifm.fm.base[2] = address; return 0;
    case MX_NPU_SET_IFM_BASE3: s->ifm.fm.base[3] = address; return 0;
    case MX_NPU_SET_IFM_STRIDE_X: s->ifm.fm.stride_x = address; return 0;
    case MX_NPU_SET_IFM_STRIDE_Y: s->ifm.fm.stride_y = address; return 0;
    case MX_NPU_SET_IFM_STRIDE_C: s->ifm.fm.stride_c = address; return 0;
    case MX_NPU_SET_OFM_BASE0: s->ofm.fm.base[0] = address; return 0;
    case MX_NPU_SET_OFM_BASE1: s->ofm.fm.base[1] = address; return 0;
    case MX_NPU_SET_OFM_BASE2: s->ofm.fm.base[2] = address; return 0;
    case MX_NPU_SET_OFM_BASE3: s->ofm.fm.base[3] = address; return 0;
    case MX_NPU_SET_OFM_STRIDE_X: s->ofm.fm.stride_x = address; return 0;
    case MX_NPU_SET_OFM_STRIDE_Y: s->ofm.fm.stride_y = address; return 0;
    case MX_NPU_SET_OFM_STRIDE_C: s->ofm.fm.stride_c = address; return 0;
    case MX_NPU_SET_WEIGHT_BASE: s->weight.base[0] = address; return 0;
    case MX_NPU_SET_WEIGHT_LENGTH: s->weight.length[0] = payload; return 0;
    case MX_NPU_SET_SCALE_BASE: s->scale.base[0] = address; return 0;
    case MX_NPU_SET_SCALE_LENGTH: s->scale.length[0] = payload; return 0;
    case MX_NPU_SET_OFM_SCALE: s->ofm_scale = (mx_npu_scale){payload, (uint8_t)p}; return 0;
    case MX_NPU_SET_OPA_SCALE: s->opa_scale = (mx_npu_scale){payload, (uint8_t)p}; return 0;
    case MX_NPU_SET_OPB_SCALE:
      if (payload >> 16) {
        return fail(c->err, MX_NPU_ERR_RESERVED_BITS, c->at, c->opcode, c->word,
                    "payload 0x%08X: bits 16-31 are reserved (the scale is 16 bits)", (unsigned)payload);
      }
      s->opb_scale = (uint16_t)payload;
      return 0;
    case MX_NPU_SET_DMA0_SRC: s->dma.src = address; return 0;
    case MX_NPU_SET_DMA0_DST: s->dma.dst = address; return 0;
    case MX_NPU_SET_DMA0_LEN: s->dma.len = address; return 0;
    case MX_NPU_SET_DMA0_SKIP0: s->dma.skip0 = address; return 0;
    case MX_NPU_SET_DMA0_SKIP1: s->dma.skip1 = address; return 0;
    case MX_NPU_SET_IFM2_BASE0: s->ifm2.fm.base[0] = address; return 0;
    case MX_NPU_SET_IFM2_BASE1: s->ifm2.fm.base[1] = address; return 0;
    case MX_NPU_SET_IFM2_BASE2: s->ifm2.fm.base[2] = address; return 0;
    case MX_NPU_SET_IFM2_BASE3: s->ifm2.fm.base[3] = address; return 0;
    case MX_NPU_SET_IFM2_STRIDE_X: s->ifm2.fm.stride_x = address; return 0;
    case MX_NPU_SET_IFM2_STRIDE_Y: s->ifm2.fm.stride_y = address; return 0;
    case MX_NPU_SET_IFM2_STRIDE_C: s->ifm2.fm.stride_c = address; return 0;
    case MX_NPU_SET_WEIGHT1_BASE: s->weight.base[1] = address; return 0;
    case MX_NPU_SET_WEIGHT1_LENGTH: s->weight.length[1] = payload; return 0;
    case MX_NPU_SET_SCALE1_BASE: s->scale.base[1] = address; return 0;
    case MX_NPU_SET_SCALE1_LENGTH: s->scale.length[1] = payload; return 0;
    default: break;
  }
  return fail(c->err, MX_NPU_ERR_UNKNOWN_OPCODE, c->at, c->opcode, c->word, "listed but not decoded");
}

/* ---- the decoder ---------------------------------------------------------------------------------------- */
void mx_npu_decoder_init(mx_npu_decoder *d, const uint32_t *words, size_t count) {
  memset(d, 0, sizeof *d);
  d->words = words;
  d->count = words == NULL ? 0 : count;
}

int mx_npu_decoder_next(mx_npu_decoder *d, mx_npu_op *op, mx_npu_error *err) {
  if (d == NULL || op == NULL) {
    return fail(err, MX_NPU_ERR_ARGUMENT, 0, MX_NPU_NO_OPCODE, 0, "mx_npu_decoder_next: NULL decoder or op");
  }
  while (d->pos < d->count) {
    site c = {d->pos, MX_NPU_NO_OPCODE, d->words[d->pos], err};
    unsigned control = (c.word >> PAYLOAD_SHIFT) & 3u, param = c.word >> 16;
    c.opcode = (c.word & OPCODE_BITS) | (control != 0 ? MX_NPU_CMD1 : 0); /* payload bits: cmd1 numbering */
    if (d->stopped) {
      return fail(err, MX_NPU_ERR_AFTER_STOP, c.at, c.opcode, c.word, "follows NPU_OP_STOP (word %zu)", d->stop_word);
    }
    if (c.word & RESERVED_WORD_BITS) {
      return fail(err, MX_NPU_ERR_RESERVED_BITS, c.at, c.opcode, c.word, "command word 0x%08X sets bits 10-13",
                  (unsigned)c.word);
    }
    if (control > 1) {
      return fail(err, MX_NPU_ERR_PAYLOAD_SIZE, c.at, c.opcode, c.word, "payload size %u in command word 0x%08X",
                  control, (unsigned)c.word);
    }
    command_info info;
    if (!command_lookup(c.opcode, &info)) {
      return fail(err, MX_NPU_ERR_UNKNOWN_OPCODE, c.at, c.opcode, c.word, "no %s command has opcode 0x%03X",
                  control ? "cmd1" : "cmd0", (unsigned)(c.opcode & OPCODE_BITS));
    }
    if (param & ~(unsigned)info.param_bits) {
      return fail(err, MX_NPU_ERR_RESERVED_BITS, c.at, c.opcode, c.word, "parameter 0x%04X sets reserved bits 0x%04X",
                  param, param & ~(unsigned)info.param_bits);
    }
    if (control == 1) {
      if (c.at + 1 >= d->count) {
        return fail(err, MX_NPU_ERR_TRUNCATED, c.at, c.opcode, c.word,
                    "its payload word would be word %zu, the stream has %zu", c.at + 1, d->count);
      }
      int rc = set1(&d->state, &c, param, d->words[c.at + 1]);
      if (rc != 0) return rc;
      d->last_opcode = c.opcode;
      d->last_word = c.at;
      d->state.written[info.reg / 32] |= 1u << (info.reg % 32);
      d->pos += 2;
      continue;
    }
    if (info.reg >= 0) {
      int rc = set0(&d->state, &c, param);
      if (rc != 0) return rc;
      d->last_opcode = c.opcode;
      d->last_word = c.at;
      d->state.written[info.reg / 32] |= 1u << (info.reg % 32);
      d->pos += 1;
      continue;
    }
    /* An operation. */
    if (c.opcode == MX_NPU_OP_POOL && !is_pooling(param)) return bad_value(&c, "pooling mode", param);
    if (c.opcode == MX_NPU_OP_ELEMENTWISE && !is_elementwise(param)) {
      return bad_value(&c, "elementwise mode", param);
    }
    int rc = mx_npu_check_reads(&d->state, &c, param);
    if (rc != 0) return rc;
    op->opcode = (uint16_t)c.opcode;
    op->param = (uint16_t)param;
    op->word_index = c.at;
    op->state = d->state;
    d->last_opcode = c.opcode;
    d->last_word = c.at;
    d->pos += 1;
    if (c.opcode == MX_NPU_OP_STOP) {
      d->stopped = 1;
      d->stop_word = c.at;
    }
    return 1;
  }
  if (!d->stopped) {
    if (d->count == 0) return fail(err, MX_NPU_ERR_NO_STOP, 0, MX_NPU_NO_OPCODE, 0, "empty stream, no NPU_OP_STOP");
    const char *name = mx_npu_opcode_name(d->last_opcode);
    int rc = fail(err, MX_NPU_ERR_NO_STOP, d->count, MX_NPU_NO_OPCODE, 0,
                  "the stream ends without NPU_OP_STOP; its last command is %s (0x%04X) at word %zu", name ? name : "?",
                  (unsigned)d->last_opcode, d->last_word);
    if (err != NULL) err->opcode = d->last_opcode;
    return rc;
  }
  return 0;
}

int mx_npu_decode(const uint32_t *words, size_t count, mx_npu_op *ops, size_t capacity, size_t *op_count,
                  mx_npu_error *err) {
  if (op_count != NULL) *op_count = 0;
  if ((words == NULL && count != 0) || (ops == NULL && capacity != 0) || op_count == NULL) {
    return fail(err, MX_NPU_ERR_ARGUMENT, 0, MX_NPU_NO_OPCODE, 0, "mx_npu_decode: NULL words, ops or op_count");
  }
  mx_npu_decoder d;
  mx_npu_decoder_init(&d, words, count);
  mx_npu_op spare; /* counting only (ops == NULL) */
  for (;;) {
    if (ops != NULL && *op_count == capacity) {
      /* Full: one more operation is an error, the end of the stream is not. */
      int rc = mx_npu_decoder_next(&d, &spare, err);
      if (rc <= 0) return rc;
      return fail(err, MX_NPU_ERR_CAPACITY, spare.word_index, spare.opcode, d.words[spare.word_index],
                  "operation %zu does not fit in an array of %zu", capacity, capacity);
    }
    int rc = mx_npu_decoder_next(&d, ops != NULL ? &ops[*op_count] : &spare, err);
    if (rc <= 0) return rc;
    *op_count += 1;
  }
}
