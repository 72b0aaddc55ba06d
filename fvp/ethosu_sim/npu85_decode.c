/* The Ethos-U85 command-stream decoder: command words -> register state -> operations, as npu_decode.c does for
 * the U55/U65, with the U85's command list (npu85_opcodes.def) and field layouts. Registers the two NPUs share
 * land in mx_npu_state's common fields, so that the executors' shared parts read them in one place; the U85's
 * own fields go to state.u85. Strictness is the U55 decoder's: unknown opcodes, reserved bits, values outside
 * an enumeration, a cut-off cmd1, words after STOP and a missing STOP are errors naming the word and command. */
#include <string.h>

#include "npu85_decode_internal.h"
#include "npu_round.h"

#define OPCODE_BITS 0x3FFu
#define RESERVED_WORD_BITS 0x3C00u
#define PAYLOAD_SHIFT 14

typedef struct {
  const char *name;
  uint16_t param_bits;
  int reg; /* R85_*, or -1 for an operation */
} command85;

static int lookup(unsigned opcode, command85 *info) {
  switch (opcode) {
#define MX_NPU85_OP(name, code, bits) \
  case (code): *info = (command85){"NPU_OP_" #name, (bits), -1}; return 1;
#define MX_NPU85_SET0(name, code, bits) \
  case (code): *info = (command85){"NPU_SET_" #name, (bits), R85_##name}; return 1;
#define MX_NPU85_SET1(name, code, bits) \
  case MX_NPU_CMD1 | (code): *info = (command85){"NPU_SET_" #name, (bits), R85_##name}; return 1;
#include "npu85_opcodes.def"
#undef MX_NPU85_OP
#undef MX_NPU85_SET0
#undef MX_NPU85_SET1
    default: return 0;
  }
}

#define OP_BRANCH (MX_NPU_CMD1 | 0x100u)

const char *mx_npu85_opcode_name(unsigned opcode) {
  command85 info;
  if (opcode == OP_BRANCH) return "NPU_OP_BRANCH";
  return lookup(opcode, &info) ? info.name : NULL;
}

static int bad(const site *c, const char *field, unsigned value) {
  return fail(c->err, MX_NPU_ERR_BAD_VALUE, c->at, c->opcode | MX_NPU_U85_OPCODE, c->word,
              "%s %u is not a value the Ethos-U85 defines", field, value);
}

static int refuse(const site *c, const char *what, unsigned value) {
  return fail(c->err, MX_NPU_ERR_NOT_IMPLEMENTED, c->at, c->opcode | MX_NPU_U85_OPCODE, c->word, what, value);
}

/* A feature map's precision register: signed bit, precision code (8 << code bits), format, storage. The 64-bit
 * and unsigned 32-bit types have no mx_npu_dtype: refused here by name. */
static int precision(const site *c, unsigned is_signed, unsigned code, unsigned format, mx_npu_fm *fm, uint8_t *bits) {
  static const uint8_t types[3][2] = {
      {MX_NPU_DTYPE_U8, MX_NPU_DTYPE_S8}, {MX_NPU_DTYPE_U16, MX_NPU_DTYPE_S16}, {0, MX_NPU_DTYPE_S32}};
  if (code == 3) return refuse(c, "64-bit feature maps are not implemented (precision code %u)", code);
  if (code == 2 && !is_signed) return refuse(c, "unsigned 32-bit feature maps are not implemented (%u)", code);
  if (format > 1) return bad(c, "activation format", format);
  fm->dtype = types[code][is_signed];
  fm->layout = (uint8_t)format;
  *bits = (uint8_t)code;
  return 0;
}

static int scale85(const site *c, unsigned p, uint32_t payload, unsigned round_max, mx_npu85_scale *out) {
  unsigned round = (p >> 13) & 7u;
  if (payload >> 31) {
    return fail(c->err, MX_NPU_ERR_RESERVED_BITS, c->at, c->opcode | MX_NPU_U85_OPCODE, c->word,
                "payload 0x%08X: bit 31 is reserved (the scale is 31 bits)", (unsigned)payload);
  }
  if (round > round_max) return bad(c, "rounding mode", round);
  *out = (mx_npu85_scale){payload, (uint8_t)(p & 0x3Fu), (uint8_t)((p >> 6) & 0x1Fu), (uint8_t)round};
  return 0;
}

/* The U55 rounding of the same arithmetic, for the shared executors (round_mode_ofm: DOUBLE_SYMMETRIC is the
 * U55's TFL, NATURAL and TRUNCATE_TO_ZERO are the same, TRUNCATE_TO_LOWER is npu_round.h's FLOOR); the other U85
 * modes are refused by the executor. */
static uint8_t common_rounding(unsigned round) {
  switch (round) {
    case 1: return MX_NPU_ROUNDING_NATURAL;
    case 4: return MX_NPU_ROUNDING_TRUNCATE;
    case 5: return MX_NPU_ROUNDING_FLOOR;
    default: return MX_NPU_ROUNDING_TFL;
  }
}

static int set0(mx_npu_state *s, const site *c, unsigned p) {
  mx_npu85_regs *u = &s->u85;
  switch (c->opcode) {
    case 0x100: s->ifm.pad_top = (uint8_t)p; return 0;
    case 0x101: s->ifm.pad_left = (uint8_t)p; return 0;
    case 0x102: s->ifm.pad_right = (uint8_t)p; return 0;
    case 0x103: s->ifm.pad_bottom = (uint8_t)p; return 0;
    case 0x104: s->ifm.depth_m1 = (uint16_t)p; return 0;
    case 0x105:
      u->ifm_storage = (uint8_t)(p >> 14);
      return precision(c, p & 1u, (p >> 2) & 3u, (p >> 6) & 3u, &s->ifm.fm, &u->ifm_precision_bits);
    case 0x107:
      if (p > 2) return bad(c, "IFM upscale mode", p);
      u->ifm_upscale = (uint8_t)p;
      return 0;
    case 0x108:
      if (p > 8) return bad(c, "IFM broadcast mode", p);
      u->ifm_broadcast = (uint8_t)p;
      return 0;
    case 0x109: s->ifm.fm.zero_point = (int16_t)p; return 0;
    case 0x10A: s->ifm.fm.width0_m1 = (uint16_t)p; return 0;
    case 0x10B: s->ifm.fm.height0_m1 = (uint16_t)p; return 0;
    case 0x10C: s->ifm.fm.height1_m1 = (uint16_t)p; return 0;
    case 0x10F: s->ifm.fm.region = (uint8_t)p; return 0;
    case 0x111: s->ofm.width_m1 = (uint16_t)p; return 0;
    case 0x112: s->ofm.height_m1 = (uint16_t)p; return 0;
    case 0x113: s->ofm.depth_m1 = (uint16_t)p; return 0;
    case 0x114: {
      unsigned transpose = (p >> 11) & 7u;
      if (transpose == 4 || transpose == 5) return bad(c, "OFM transpose", transpose);
      s->ofm.global_scale = (uint8_t)((p >> 8) & 1u);
      u->ofm_reverse = (uint8_t)((p >> 9) & 3u);
      u->ofm_transpose = (uint8_t)transpose;
      u->ofm_storage = (uint8_t)(p >> 14);
      return precision(c, p & 1u, (p >> 1) & 3u, (p >> 6) & 3u, &s->ofm.fm, &u->ofm_precision_bits);
    }
    case 0x115: s->ofm.blk_width_m1 = (uint16_t)p; return 0;
    case 0x116: s->ofm.blk_height_m1 = (uint16_t)p; return 0;
    case 0x117: s->ofm.blk_depth_m1 = (uint16_t)p; return 0;
    case 0x118: s->ofm.fm.zero_point = (int16_t)p; return 0;
    case 0x11A: s->ofm.fm.width0_m1 = (uint16_t)p; return 0;
    case 0x11B: s->ofm.fm.height0_m1 = (uint16_t)p; return 0;
    case 0x11C: s->ofm.fm.height1_m1 = (uint16_t)p; return 0;
    case 0x11F: s->ofm.fm.region = (uint8_t)p; return 0;
    case 0x120: s->kernel.width_m1 = (uint16_t)p; return 0;
    case 0x121: s->kernel.height_m1 = (uint16_t)p; return 0;
    case 0x122:
      s->kernel.stride_x = (uint8_t)(1u + ((p & 1u) | ((p >> 6) & 1u) << 1));
      s->kernel.stride_y = (uint8_t)(1u + (((p >> 1) & 1u) | ((p >> 9) & 1u) << 1));
      s->kernel.part_kernel_first = (uint8_t)((p >> 2) & 1u);
      s->kernel.dilation_x = (uint8_t)(1u + ((p >> 3) & 1u));
      s->kernel.dilation_y = (uint8_t)(1u + ((p >> 4) & 1u));
      u->decomposition = (uint8_t)((p >> 5) & 1u);
      return 0;
    case 0x124: {
      unsigned input = (p >> 4) & 3u, ublock = (p >> 8) & 7u;
      if ((p & 3u) > 1) return bad(c, "accumulator format", p & 3u);
      if (input > 2) return bad(c, "accumulator input", input);
      if (ublock > 5) return bad(c, "microblock", ublock);
      u->acc_format = (uint8_t)(p & 3u);
      u->acc_input = (uint8_t)input;
      u->acc_output = (uint8_t)((p >> 6) & 1u);
      u->microblock = (uint8_t)ublock;
      return 0;
    }
    case 0x125: {
      unsigned f = p & 0x1Fu;
      if (!(f <= 1 || f == 4 || f == 5 || (f >= 7 && f <= 11))) return bad(c, "activation function", f);
      u->act_function = (uint8_t)f;
      u->act_table = (uint8_t)((p >> 5) & 7u);
      u->act_clip = (uint8_t)((p >> 12) & 1u);
      return 0;
    }
    case 0x126: s->activation.min = (int16_t)p; return 0;
    case 0x127: s->activation.max = (int16_t)p; return 0;
    case 0x128: s->weight.region = (uint8_t)p; return 0;
    case 0x129: s->scale.region = (uint8_t)p; return 0;
    case 0x12A:
    case 0x12B:
    case 0x12C:
    case 0x12D: return 0; /* NPU_OP_RESIZE's: the executor refuses RESIZE */
    case 0x12E:
      u->weight_fast = (uint8_t)(p & 1u);
      u->weight_sparse = (uint8_t)((p >> 4) & 1u);
      return 0;
    case 0x12F: s->blockdep = (uint16_t)p; return 0;
    case 0x130: {
      unsigned mode = (p >> 9) & 3u;
      if (mode == 3) return bad(c, "DMA stride mode", mode);
      s->dma.src_region = (uint8_t)(p & 7u);
      s->dma.src_internal = (uint8_t)((p >> 8) & 1u);
      s->dma.src_stride_mode = (uint8_t)mode;
      u->src_idx_mode = (uint8_t)((p >> 11) & 1u);
      return 0;
    }
    case 0x131:
      s->dma.dst_region = (uint8_t)(p & 7u);
      s->dma.dst_internal = (uint8_t)((p >> 8) & 1u);
      s->dma.dst_stride_mode = s->dma.src_stride_mode;
      u->dst_idx_mode = (uint8_t)((p >> 11) & 1u);
      return 0;
    case 0x132: s->dma.size0 = (uint16_t)p; return 0;
    case 0x133: s->dma.size1 = (uint16_t)p; return 0;
    case 0x134: return 0; /* index region: index mode is refused by the executor */
    case 0x180:
      if (p > 8) return bad(c, "IFM2 broadcast mode", p);
      u->ifm2_broadcast = (uint8_t)p;
      s->ifm2.use_scalar = p == 8;
      s->ifm2.broadcast_h = p < 8 && (p & 1u);
      s->ifm2.broadcast_w = p < 8 && (p & 2u);
      s->ifm2.broadcast_c = p < 8 && (p & 4u);
      return 0;
    case 0x185:
      u->ifm2_storage = (uint8_t)(p >> 14);
      return precision(c, p & 1u, (p >> 2) & 3u, (p >> 6) & 3u, &s->ifm2.fm, &u->ifm2_precision_bits);
    case 0x189: s->ifm2.fm.zero_point = (int16_t)p; return 0;
    case 0x18A: s->ifm2.fm.width0_m1 = (uint16_t)p; return 0;
    case 0x18B: s->ifm2.fm.height0_m1 = (uint16_t)p; return 0;
    case 0x18C: s->ifm2.fm.height1_m1 = (uint16_t)p; return 0;
    case 0x18F: s->ifm2.fm.region = (uint8_t)p; return 0;
    default: break;
  }
  return fail(c->err, MX_NPU_ERR_UNKNOWN_OPCODE, c->at, c->opcode | MX_NPU_U85_OPCODE, c->word,
              "listed but not decoded");
}

static int set1(mx_npu_state *s, const site *c, unsigned p, uint32_t payload) {
  mx_npu85_regs *u = &s->u85;
  uint64_t a = (uint64_t)payload | (uint64_t)(p & 0xFFu) << 32; /* a 40-bit address */
  int rc;
  switch (c->opcode & OPCODE_BITS) {
    case 0x000:
    case 0x001:
    case 0x002:
    case 0x003: s->ifm.fm.base[c->opcode & 3u] = a; return 0;
    case 0x004: s->ifm.fm.stride_x = a; return 0;
    case 0x005: s->ifm.fm.stride_y = a; return 0;
    case 0x006: s->ifm.fm.stride_c = a; return 0;
    case 0x010:
    case 0x011:
    case 0x012:
    case 0x013: s->ofm.fm.base[c->opcode & 3u] = a; return 0;
    case 0x014: s->ofm.fm.stride_x = a; return 0;
    case 0x015: s->ofm.fm.stride_y = a; return 0;
    case 0x016: s->ofm.fm.stride_c = a; return 0;
    case 0x020: s->weight.base[0] = a; return 0;
    case 0x021: s->weight.length[0] = payload; return 0;
    case 0x022: s->scale.base[0] = a; return 0;
    case 0x023: s->scale.length[0] = payload & 0xFFFFFu; return 0;
    case 0x024:
      rc = scale85(c, p, payload, 5, &u->ofm_scale);
      if (rc != 0) return rc;
      s->ofm_scale = (mx_npu_scale){payload, (uint8_t)(p & 0x3Fu)};
      s->ofm.rounding = common_rounding(u->ofm_scale.round);
      return 0;
    case 0x025:
      rc = scale85(c, p, payload, 1, &u->ifm_scale);
      if (rc != 0) return rc;
      s->opa_scale = (mx_npu_scale){payload, (uint8_t)(p & 0x3Fu)};
      s->ifm.rounding = common_rounding(u->ifm_scale.round);
      return 0;
    case 0x026: return scale85(c, p, payload, 1, &u->ifm2_scale);
    case 0x027: u->op_scalar = (int32_t)payload; return 0;
    case 0x030: s->dma.src = a; return 0;
    case 0x031: s->dma.dst = a; return 0;
    case 0x032: s->dma.len = a; return 0;
    case 0x033:
    case 0x034: u->dma_src_stride[c->opcode & 1u ? 0 : 1] = a; return 0;
    case 0x035:
    case 0x036: u->dma_dst_stride[c->opcode & 1u ? 0 : 1] = a; return 0;
    case 0x037:
    case 0x038:
    case 0x039: return 0; /* index mode: refused by the executor */
    case 0x080:
    case 0x081:
    case 0x082:
    case 0x083: s->ifm2.fm.base[c->opcode & 3u] = a; return 0;
    case 0x084: s->ifm2.fm.stride_x = a; return 0;
    case 0x085: s->ifm2.fm.stride_y = a; return 0;
    case 0x086: s->ifm2.fm.stride_c = a; return 0;
    case 0x090:
    case 0x092:
    case 0x094: s->weight.base[1 + ((c->opcode & 0xFu) >> 1)] = a; return 0;
    case 0x091:
    case 0x093:
    case 0x095: s->weight.length[1 + ((c->opcode & 0xFu) >> 1)] = payload; return 0;
    case 0x096:
    case 0x097: return 0; /* NPU_OP_RESIZE's */
    default: break;
  }
  return fail(c->err, MX_NPU_ERR_UNKNOWN_OPCODE, c->at, c->opcode | MX_NPU_U85_OPCODE, c->word,
              "listed but not decoded");
}

int mx_npu85_decoder_next(mx_npu_decoder *d, mx_npu_op *op, mx_npu_error *err) {
  if (d == NULL || op == NULL) {
    return fail(err, MX_NPU_ERR_ARGUMENT, 0, MX_NPU_NO_OPCODE, 0, "mx_npu85_decoder_next: NULL decoder or op");
  }
  while (d->pos < d->count) {
    site c = {d->pos, MX_NPU_NO_OPCODE, d->words[d->pos], err};
    unsigned control = (c.word >> PAYLOAD_SHIFT) & 3u, param = c.word >> 16;
    c.opcode = (c.word & OPCODE_BITS) | (control != 0 ? MX_NPU_CMD1 : 0);
    unsigned named = c.opcode | MX_NPU_U85_OPCODE;
    if (d->stopped) {
      return fail(err, MX_NPU_ERR_AFTER_STOP, c.at, named, c.word, "follows NPU_OP_STOP (word %zu)", d->stop_word);
    }
    if (c.word & RESERVED_WORD_BITS) {
      return fail(err, MX_NPU_ERR_RESERVED_BITS, c.at, named, c.word, "command word 0x%08X sets bits 10-13",
                  (unsigned)c.word);
    }
    if (control > 1) {
      return fail(err, MX_NPU_ERR_PAYLOAD_SIZE, c.at, named, c.word, "payload size %u in command word 0x%08X", control,
                  (unsigned)c.word);
    }
    command85 info;
    if (!lookup(c.opcode, &info)) {
      return fail(err, MX_NPU_ERR_UNKNOWN_OPCODE, c.at, named, c.word, "no Ethos-U85 %s command has opcode 0x%03X",
                  control ? "cmd1" : "cmd0", (unsigned)(c.opcode & OPCODE_BITS));
    }
    if (param & ~(unsigned)info.param_bits) {
      return fail(err, MX_NPU_ERR_RESERVED_BITS, c.at, named, c.word, "parameter 0x%04X sets reserved bits 0x%04X",
                  param, param & ~(unsigned)info.param_bits);
    }
    d->last_opcode = named;
    d->last_word = c.at;
    if (control == 1 && c.opcode != OP_BRANCH) {
      if (c.at + 1 >= d->count) {
        return fail(err, MX_NPU_ERR_TRUNCATED, c.at, named, c.word,
                    "its payload word would be word %zu, the stream has %zu", c.at + 1, d->count);
      }
      int rc = set1(&d->state, &c, param, d->words[c.at + 1]);
      if (rc != 0) return rc;
      d->state.u85.written[info.reg / 32] |= 1u << (info.reg % 32);
      d->pos += 2;
      continue;
    }
    if (control == 0 && info.reg >= 0) {
      int rc = set0(&d->state, &c, param);
      if (rc != 0) return rc;
      d->state.u85.written[info.reg / 32] |= 1u << (info.reg % 32);
      d->pos += 1;
      continue;
    }
    /* An operation (NPU_OP_BRANCH too: handed out, with its target word skipped, for the executor to refuse). */
    if (c.opcode == MX_NPU_OP_POOL && param > 7) return bad(&c, "pooling mode", param);
    int rc = mx_npu85_check_reads(&d->state, &c, param);
    if (rc != 0) return rc;
    op->opcode = (uint16_t)c.opcode;
    op->param = (uint16_t)param;
    op->word_index = c.at;
    op->state = d->state;
    d->pos += control == 1 ? 2 : 1;
    if (c.opcode == MX_NPU_OP_STOP) {
      d->stopped = 1;
      d->stop_word = c.at;
    }
    return 1;
  }
  if (!d->stopped) {
    if (d->count == 0) return fail(err, MX_NPU_ERR_NO_STOP, 0, MX_NPU_NO_OPCODE, 0, "empty stream, no NPU_OP_STOP");
    const char *name = mx_npu85_opcode_name(d->last_opcode & ~MX_NPU_U85_OPCODE);
    int rc = fail(err, MX_NPU_ERR_NO_STOP, d->count, MX_NPU_NO_OPCODE, 0,
                  "the stream ends without NPU_OP_STOP; its last command is %s (0x%04X) at word %zu", name ? name : "?",
                  (unsigned)(d->last_opcode & 0xFFFFu), d->last_word);
    if (err != NULL) err->opcode = d->last_opcode;
    return rc;
  }
  return 0;
}
