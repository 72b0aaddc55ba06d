#ifndef MX_NPU_COMMANDS_H
#define MX_NPU_COMMANDS_H
/* Ethos-U55/U65 command streams (as Vela 5.2 writes them) decoded into register state and operations.
 *
 * Command words (facts from Vela's ethos_u55_regs.py and register_command_stream_generator.py):
 *   bits 0-9    opcode
 *   bits 10-13  zero
 *   bits 14-15  payload size: 0 = cmd0 (no payload), 1 = cmd1 (one 32-bit payload word follows); 2 and 3
 *               are refused
 *   bits 16-31  parameter: a cmd0 register's value, an operation's mode; for a cmd1 address, bits 32-47 of
 *               the address (the Ethos-U65 has 40-bit addresses), for OFM_SCALE/OPA_SCALE the shift
 * cmd0 and cmd1 opcodes are numbered apart (NPU_SET_IFM_BASE0 and NPU_OP_STOP are both 0): an mx_npu_opcode
 * carries the payload bit, MX_NPU_CMD1 (0x4000), as the command word's low half does. The list of commands,
 * their numbers and the bits of their parameters is npu_opcodes.def.
 *
 * A stream is register writes (NPU_SET_*) and operations (NPU_OP_*) that run with the registers as they
 * stand, ending with NPU_OP_STOP. Registers keep their values across operations: Vela writes only the
 * registers whose value changes, so an operation reads the last value written to each register, however
 * many operations ago. The decoder therefore keeps the whole register file (mx_npu_state) and hands out, per
 * NPU_OP_* command (waits and STOP included), one mx_npu_op: the opcode, its parameter and a copy of the
 * state. Before it hands out CONV, DEPTHWISE, POOL,
 * ELEMENTWISE or DMA_START it checks that the stream wrote every register the operation reads (Vela writes
 * them all before their first use); a register left at its reset value is refused, not guessed.
 *
 * Decoding is strict: an unknown opcode, reserved bits (see npu_opcodes.def), an enumeration value Vela does
 * not define, a cmd1 cut off at the end, words after STOP or a missing STOP are errors naming the word index
 * and the opcode. Which operations and modes an executor implements is the executor's business: it refuses
 * the rest with mx_npu_opcode_name() of the operation.
 *
 * Regions (Vela's convention): an address is an offset in one of 8 memory regions whose base the driver
 * provides: 0 the weights and other constants (the delegate's weight_data), 1 the scratch arena (where the
 * delegate's inputs and outputs live), 2 the fast scratch (Vela's Dedicated_Sram memory modes). A DMA region
 * with the internal bit (Vela writes 0x103 for its MEM2MEM copies) addresses the NPU's internal memory.
 *
 * Feature maps (Vela's get_address): a feature map is up to 4 tiles, base[0] top-left, base[1] top-right
 * (x >= width0), base[2] bottom-left (y >= height0), base[3] bottom-right (x >= width0 and y >= height1);
 * coordinates are taken relative to their tile. Element (y, x, c) of a tile with element size e is at
 *   NHWC:     base + y * stride_y + x * stride_x + c * e
 *   NHCWB16:  base + y * stride_y + x * 16 * e + (c / 16) * stride_c + (c % 16) * e
 * The IFM's full height and width are not registers: they follow from the OFM size, the kernel, its
 * stride and the padding. IFM2 has only its tile registers: Vela gives an elementwise operation's IFM, IFM2
 * and OFM one shape, except the dimensions IFM2_BROADCAST marks, where IFM2 has size 1.
 *
 * No allocation, no global mutable state: the caller owns every buffer. C11. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---- opcodes and registers (npu_opcodes.def) --------------------------------------------------------- */
#define MX_NPU_CMD1 0x4000u /* the payload bit (command bit 14), carried by cmd1 opcodes */

typedef enum mx_npu_opcode {
#define MX_NPU_OP(name, code, bits) MX_NPU_OP_##name = (code),
#define MX_NPU_SET0(name, code, bits) MX_NPU_SET_##name = (code),
#define MX_NPU_SET1(name, code, bits) MX_NPU_SET_##name = MX_NPU_CMD1 | (code),
#include "npu_opcodes.def"
#undef MX_NPU_OP
#undef MX_NPU_SET0
#undef MX_NPU_SET1
} mx_npu_opcode;

/* Dense index of each register write (cmd0 and cmd1), for mx_npu_state.written. */
typedef enum mx_npu_reg {
#define MX_NPU_OP(name, code, bits)
#define MX_NPU_SET0(name, code, bits) MX_NPU_R_##name,
#define MX_NPU_SET1(name, code, bits) MX_NPU_R_##name,
#include "npu_opcodes.def"
#undef MX_NPU_OP
#undef MX_NPU_SET0
#undef MX_NPU_SET1
  MX_NPU_R_COUNT
} mx_npu_reg;

/* ---- field enumerations: (NAME, value) lists, values from Vela's ethos_u55_regs.py ------------------- */
#define MX_NPU_ENUMERATOR(type, name, value) MX_NPU_##type##_##name = (value),

/* clang-format off */
/* IFM/IFM2/OFM element type, decoded from the precision registers' signed bit and size field */
#define MX_NPU_DTYPE_LIST(X) \
  X(DTYPE, U8, 0)            \
  X(DTYPE, S8, 1)            \
  X(DTYPE, U16, 2)           \
  X(DTYPE, S16, 3)           \
  X(DTYPE, S32, 4)
/* data_format */
#define MX_NPU_LAYOUT_LIST(X) \
  X(LAYOUT, NHWC, 0)          \
  X(LAYOUT, NHCWB16, 1)
/* pooling_mode: NPU_OP_POOL's parameter */
#define MX_NPU_POOLING_LIST(X) \
  X(POOLING, MAX, 0)           \
  X(POOLING, AVERAGE, 1)       \
  X(POOLING, REDUCE_SUM, 2)
/* elementwise_mode: NPU_OP_ELEMENTWISE's parameter */
#define MX_NPU_ELEMENTWISE_LIST(X) \
  X(ELEMENTWISE, MUL, 0)           \
  X(ELEMENTWISE, ADD, 1)           \
  X(ELEMENTWISE, SUB, 2)           \
  X(ELEMENTWISE, MIN, 3)           \
  X(ELEMENTWISE, MAX, 4)           \
  X(ELEMENTWISE, LRELU, 5)         \
  X(ELEMENTWISE, ABS, 6)           \
  X(ELEMENTWISE, CLZ, 7)           \
  X(ELEMENTWISE, SHR, 8)           \
  X(ELEMENTWISE, SHL, 9)
/* activation: the function after scaling; LUT_0..7 look up table 0..7 (Vela: LUT_START..LUT_END) */
#define MX_NPU_ACTIVATION_LIST(X) \
  X(ACTIVATION, NONE, 0)          \
  X(ACTIVATION, TANH, 3)          \
  X(ACTIVATION, SIGMOID, 4)       \
  X(ACTIVATION, LUT_0, 16)        \
  X(ACTIVATION, LUT_1, 17)        \
  X(ACTIVATION, LUT_2, 18)        \
  X(ACTIVATION, LUT_3, 19)        \
  X(ACTIVATION, LUT_4, 20)        \
  X(ACTIVATION, LUT_5, 21)        \
  X(ACTIVATION, LUT_6, 22)        \
  X(ACTIVATION, LUT_7, 23)
/* clip_range: the range the activation clamps to (OFM_PRECISION: the OFM type's) */
#define MX_NPU_CLIP_LIST(X)   \
  X(CLIP, OFM_PRECISION, 0)   \
  X(CLIP, FORCE_UINT8, 2)     \
  X(CLIP, FORCE_INT8, 3)      \
  X(CLIP, FORCE_INT16, 5)
/* acc_format */
#define MX_NPU_ACC_LIST(X) \
  X(ACC, INT_32BIT, 0)     \
  X(ACC, INT_40BIT, 1)     \
  X(ACC, FP_S5_10, 2)
/* resampling_mode: IFM_UPSCALE */
#define MX_NPU_RESAMPLING_LIST(X) \
  X(RESAMPLING, NONE, 0)          \
  X(RESAMPLING, NEAREST, 1)       \
  X(RESAMPLING, TRANSPOSE, 2)
/* rounding: OFM_PRECISION (and IFM_PRECISION) bits 14-15 */
#define MX_NPU_ROUNDING_LIST(X) \
  X(ROUNDING, TFL, 0)           \
  X(ROUNDING, TRUNCATE, 1)      \
  X(ROUNDING, NATURAL, 2)
/* ifm_scale_mode: IFM_PRECISION bits 8-9, the operand OPA_SCALE's 32-bit scale applies to */
#define MX_NPU_SCALE_MODE_LIST(X) \
  X(SCALE_MODE, 16BIT, 0)         \
  X(SCALE_MODE, OPA_32BIT, 1)     \
  X(SCALE_MODE, OPB_32BIT, 2)
/* stride_mode: DMA0_SRC_REGION/DST_REGION bits 9-10 */
#define MX_NPU_STRIDE_MODE_LIST(X) \
  X(STRIDE_MODE, 1D, 0)            \
  X(STRIDE_MODE, 2D, 1)            \
  X(STRIDE_MODE, 3D, 2)
/* clang-format on */

typedef enum mx_npu_dtype { MX_NPU_DTYPE_LIST(MX_NPU_ENUMERATOR) } mx_npu_dtype;
typedef enum mx_npu_layout { MX_NPU_LAYOUT_LIST(MX_NPU_ENUMERATOR) } mx_npu_layout;
typedef enum mx_npu_pooling { MX_NPU_POOLING_LIST(MX_NPU_ENUMERATOR) } mx_npu_pooling;
typedef enum mx_npu_elementwise { MX_NPU_ELEMENTWISE_LIST(MX_NPU_ENUMERATOR) } mx_npu_elementwise;
typedef enum mx_npu_activation { MX_NPU_ACTIVATION_LIST(MX_NPU_ENUMERATOR) } mx_npu_activation;
typedef enum mx_npu_clip { MX_NPU_CLIP_LIST(MX_NPU_ENUMERATOR) } mx_npu_clip;
typedef enum mx_npu_acc { MX_NPU_ACC_LIST(MX_NPU_ENUMERATOR) } mx_npu_acc;
typedef enum mx_npu_resampling { MX_NPU_RESAMPLING_LIST(MX_NPU_ENUMERATOR) } mx_npu_resampling;
typedef enum mx_npu_rounding { MX_NPU_ROUNDING_LIST(MX_NPU_ENUMERATOR) } mx_npu_rounding;
typedef enum mx_npu_scale_mode { MX_NPU_SCALE_MODE_LIST(MX_NPU_ENUMERATOR) } mx_npu_scale_mode;
typedef enum mx_npu_stride_mode { MX_NPU_STRIDE_MODE_LIST(MX_NPU_ENUMERATOR) } mx_npu_stride_mode;

/* ---- register state ------------------------------------------------------------------------------------ */
/* The registers a feature map (IFM, IFM2, OFM) shares. Addresses and strides are bytes. */
typedef struct mx_npu_fm {
  uint64_t base[4];    /* <fm>_BASE0..3: each tile's first element, an offset in `region` */
  uint64_t stride_x;   /* <fm>_STRIDE_X: between horizontally adjacent elements (NHWC) */
  uint64_t stride_y;   /* <fm>_STRIDE_Y: between rows */
  uint64_t stride_c;   /* <fm>_STRIDE_C: between 16-channel bricks (NHCWB16) */
  uint16_t width0_m1;  /* <fm>_WIDTH0_M1: width of tiles 0 and 2, minus 1 */
  uint16_t height0_m1; /* <fm>_HEIGHT0_M1: height of tile 0, minus 1 */
  uint16_t height1_m1; /* <fm>_HEIGHT1_M1: height of tile 1, minus 1 */
  int16_t zero_point;  /* <fm>_ZERO_POINT, two's complement (an unsigned 16-bit fm reads it as uint16_t) */
  uint8_t region;      /* <fm>_REGION: base pointer index 0-7 */
  uint8_t dtype;       /* mx_npu_dtype, from <fm>_PRECISION */
  uint8_t layout;      /* mx_npu_layout, from <fm>_PRECISION */
} mx_npu_fm;

/* A weight or scale stream: WEIGHT_* / SCALE_*; index 1 is the Ethos-U65's second core (WEIGHT1_* / SCALE1_*),
 * both cores reading from `region`. */
typedef struct mx_npu_buffer {
  uint64_t base[4];   /* [2], [3]: the Ethos-U85-1024/2048's third and fourth weight streams (WEIGHT2/3_*) */
  uint32_t length[4]; /* bytes */
  uint8_t region;
} mx_npu_buffer;

typedef struct mx_npu_scale {
  uint32_t scale; /* OFM_SCALE / OPA_SCALE payload: the multiplier */
  uint8_t shift;  /* the parameter's bits 0-5 */
} mx_npu_scale;

/* Ethos-U85 registers that have no U55 counterpart (npu85_opcodes.def), or whose fields differ; the U85 decoder
 * (npu85_decode.c) writes the shared ones into mx_npu_state's common fields and these here. Enumerations are
 * regor's (ethos_u85_interface.hpp): broadcast_mode, round_mode_ofm/ifm, acc_input, activation_function, ... */
typedef struct mx_npu85_scale {
  uint32_t scale;  /* 31 bits */
  uint8_t shift;   /* 0-63 */
  uint8_t dbl_rnd; /* the double-round shift (ADD/SUB operands) */
  uint8_t round;   /* round_mode_ofm (OFM_SCALE) or round_mode_ifm (IFM/IFM2_SCALE) */
} mx_npu85_scale;

#define MX_NPU85_REG_WORDS 4 /* words of the U85 decoder's written-register bitmap (up to 128 registers) */

typedef struct mx_npu85_regs {
  uint8_t ifm_broadcast, ifm2_broadcast;      /* broadcast_mode: 1 H, 2 W, 4 C (or'ed), 8 SCALAR */
  uint8_t ifm_precision_bits, ifm2_precision_bits, ofm_precision_bits; /* precision code: 8 << n bits */
  uint8_t ifm_storage, ifm2_storage, ofm_storage;                       /* activation_storage */
  uint8_t ifm_upscale;                       /* NONE, NEAREST, ZEROS */
  uint8_t ofm_reverse, ofm_transpose;        /* activation_reverse, activation_transpose */
  mx_npu85_scale ofm_scale, ifm_scale, ifm2_scale;
  int32_t op_scalar;                         /* OP_SCALAR */
  uint8_t acc_format, acc_input, acc_output, microblock;
  uint8_t act_function, act_table, act_clip; /* ACTIVATION: activation_function, table 0-7, clip range */
  uint8_t weight_fast, weight_sparse;        /* WEIGHT_FORMAT */
  uint8_t decomposition;                     /* KERNEL_STRIDE bit 5: sub-kernels 8x8 (0) or 4x4 (1) */
  uint8_t src_idx_mode, dst_idx_mode;        /* DMA0_SRC/DST_REGION bit 11 */
  uint64_t dma_src_stride[2], dma_dst_stride[2];
  uint32_t written[MX_NPU85_REG_WORDS];      /* bit r: the stream wrote the U85 register of index r */
} mx_npu85_regs;

typedef struct mx_npu_state {
  struct {
    mx_npu_fm fm;
    uint16_t depth_m1; /* IFM_DEPTH_M1 */
    uint8_t pad_top, pad_left, pad_bottom, pad_right;
    uint8_t upscale;    /* mx_npu_resampling: IFM_UPSCALE */
    uint8_t scale_mode; /* mx_npu_scale_mode: IFM_PRECISION bits 8-9 */
    uint8_t rounding;   /* mx_npu_rounding: IFM_PRECISION bits 14-15 (Vela leaves them 0) */
    uint16_t ib_end;    /* IFM_IB_END: shared-buffer layout, no effect on results */
  } ifm;
  struct {
    mx_npu_fm fm;         /* region, bases, strides and tiles are not written for a scalar IFM2 */
    uint8_t broadcast_h;  /* IFM2_BROADCAST bits 0-2: IFM2 has height/width/depth 1 and is repeated */
    uint8_t broadcast_w;
    uint8_t broadcast_c;
    uint8_t reversed;     /* bit 6: the operation computes IFM2 op IFM */
    uint8_t use_scalar;   /* bit 7: IFM2 is `scalar` */
    int16_t scalar;       /* IFM2_SCALAR */
    uint16_t ib_start;    /* IFM2_IB_START: shared-buffer layout */
  } ifm2;
  struct {
    mx_npu_fm fm;
    uint16_t width_m1, height_m1, depth_m1; /* OFM_WIDTH_M1, OFM_HEIGHT_M1, OFM_DEPTH_M1 */
    uint8_t global_scale; /* OFM_PRECISION bit 8: 1 = OFM_SCALE for every channel, 0 = the scale stream's */
    uint8_t rounding;     /* mx_npu_rounding: OFM_PRECISION bits 14-15 */
    uint16_t blk_width_m1, blk_height_m1, blk_depth_m1; /* OFM_BLK_*: block size, no effect on results */
  } ofm;
  struct {
    uint16_t width_m1, height_m1; /* KERNEL_WIDTH_M1/HEIGHT_M1: the dilated extent minus 1 */
    uint8_t stride_x, stride_y;   /* 1-4, from KERNEL_STRIDE */
    uint8_t dilation_x, dilation_y; /* 1-2 */
    uint8_t part_kernel_first;    /* weight order: 1 part-kernel-first, 0 depth-first */
  } kernel;
  mx_npu_buffer weight;
  mx_npu_buffer scale;
  mx_npu_scale ofm_scale; /* OFM_SCALE */
  mx_npu_scale opa_scale; /* OPA_SCALE */
  uint16_t opb_scale;     /* OPB_SCALE payload bits 0-15 */
  struct {
    uint8_t function;   /* mx_npu_activation */
    uint8_t clip_range; /* mx_npu_clip */
    int16_t min, max;   /* ACTIVATION_MIN/MAX: the clamp, in the OFM's quantized domain */
  } activation;
  uint8_t acc_format;     /* mx_npu_acc: ACC_FORMAT */
  uint16_t blockdep;      /* BLOCKDEP: scheduling only */
  uint16_t ab_start;      /* AB_START: shared-buffer layout */
  uint16_t parallel_mode; /* PARALLEL_MODE (Ethos-U65): cores - 1 */
  struct {
    uint8_t src_region, src_internal, src_stride_mode; /* DMA0_SRC_REGION: mx_npu_stride_mode */
    uint8_t dst_region, dst_internal, dst_stride_mode; /* DMA0_DST_REGION */
    uint64_t src, dst, len;                            /* DMA0_SRC, DMA0_DST, DMA0_LEN: bytes */
    uint64_t skip0, skip1;                             /* DMA0_SKIP0/1 (payload | parameter << 32) */
    uint16_t size0, size1;                             /* DMA0_SIZE0/1 */
  } dma;
  uint32_t written[(MX_NPU_R_COUNT + 31) / 32]; /* bit mx_npu_reg: the stream has written that register */
  mx_npu85_regs u85; /* Ethos-U85 streams only (zero for U55/U65 streams) */
} mx_npu_state;

/* One NPU_OP_* command. POOL's parameter is an mx_npu_pooling, ELEMENTWISE's an mx_npu_elementwise (both
 * checked); STOP/IRQ: interrupt mask; DMA_WAIT/KERNEL_WAIT: the count that may stay outstanding. The state
 * comes first: an op's address is its state's (bindings pass it to mx_npu_written). */
typedef struct mx_npu_op {
  mx_npu_state state; /* every register as the operation reads it */
  size_t word_index;  /* where the command is in the stream */
  uint16_t opcode;    /* MX_NPU_OP_* */
  uint16_t param;     /* the command's parameter (bits 16-31) */
} mx_npu_op;

/* ---- errors (npu_errors.def) ------------------------------------------------------------------------- */
typedef enum mx_npu_status {
#define MX_NPU_STATUS(name, code, text) name = (code),
#include "npu_errors.def"
#undef MX_NPU_STATUS
} mx_npu_status;

#define MX_NPU_NO_OPCODE 0xFFFFFFFFu /* mx_npu_error.opcode when no command is involved */

typedef struct mx_npu_error {
  int32_t status;    /* mx_npu_status (positive) */
  uint32_t opcode;   /* the command at fault (with MX_NPU_CMD1 for cmd1), or MX_NPU_NO_OPCODE */
  size_t word_index; /* its position in the stream (the stream's length for a missing STOP) */
  uint32_t word;     /* the command word */
  char message[200]; /* one line: "word N: NAME (0x...): what is wrong" */
} mx_npu_error;

/* ---- decoding ------------------------------------------------------------------------------------------ */
/* Step by step: init, then next until it returns 0 (after STOP) or a negative -mx_npu_status (after which
 * the decoder stays at the failing word). */
typedef struct mx_npu_decoder {
  const uint32_t *words;
  size_t count;
  size_t pos;
  int stopped; /* NPU_OP_STOP seen, at stop_word */
  size_t stop_word;
  uint32_t last_opcode; /* the last command decoded, for a missing STOP's message */
  size_t last_word;
  mx_npu_state state;
} mx_npu_decoder;

void mx_npu_decoder_init(mx_npu_decoder *d, const uint32_t *words, size_t count);
/* 1: *op holds the next operation; 0: the stream has ended with STOP (and nothing follows it); < 0: an
 * error, *err filled (err may be NULL). */
int mx_npu_decoder_next(mx_npu_decoder *d, mx_npu_op *op, mx_npu_error *err);

/* Decodes a whole stream into ops[0 .. *op_count - 1]. ops may be NULL when capacity is 0: the stream is
 * checked and *op_count says how many operations it holds. Returns 0 or -mx_npu_status (*op_count: the
 * operations decoded before the error; MX_NPU_ERR_CAPACITY names the first that did not fit). */
int mx_npu_decode(const uint32_t *words, size_t count, mx_npu_op *ops, size_t capacity, size_t *op_count,
                  mx_npu_error *err);

/* "NPU_OP_CONV", "NPU_SET_IFM_BASE0" (opcode with MX_NPU_CMD1); NULL for a number no command has. With
 * MX_NPU_U85_OPCODE set, the name in the Ethos-U85's command set (npu85_opcodes.def). */
#define MX_NPU_U85_OPCODE 0x10000u
const char *mx_npu_opcode_name(unsigned opcode);
const char *mx_npu85_opcode_name(unsigned opcode); /* opcode without MX_NPU_U85_OPCODE */

/* The Ethos-U85 decoder (npu85_decode.c): as mx_npu_decoder_next, for a U85 stream (init with
 * mx_npu_decoder_init). Register writes shared with the U55 land in the state's common fields, the rest in
 * state.u85; op->opcode is the U85 opcode (CONV, POOL, ... have the U55's numbers; NPU_OP_RESIZE 7, NPU_OP_BRANCH
 * MX_NPU_CMD1 | 0x100), err->opcode carries MX_NPU_U85_OPCODE. */
int mx_npu85_decoder_next(mx_npu_decoder *d, mx_npu_op *op, mx_npu_error *err);
const char *mx_npu_status_text(int status); /* either sign; never NULL */
/* Fills *err (when given) and returns -status, for the decoder, the payload reader and the executor alike, so
 * that every message has the one-line shape mx_npu_error.message promises: `prefix`, then (when `located`)
 * "word N: " and, for an opcode other than MX_NPU_NO_OPCODE, "NAME (0xOPCODE): ", then `what` formatted with
 * `ap`, cut to fit. */
int mx_npu_error_vset(mx_npu_error *err, mx_npu_status status, const char *prefix, int located, size_t word_index,
                      uint32_t opcode, uint32_t word, const char *what, va_list ap);
/* 1 when the stream wrote register `opcode` (an MX_NPU_SET_*) before this state, 0 if not, -1 for an opcode
 * that is not a register write. */
int mx_npu_written(const mx_npu_state *state, unsigned opcode);
size_t mx_npu_op_size(void); /* sizeof(mx_npu_op), for bindings that allocate op arrays */

/* One line of `key=value` fields (every field of the op and its state, enumerations by name), NUL-terminated
 * and cut to `size`; returns the length of the whole line (as snprintf). */
size_t mx_npu_op_dump(const mx_npu_op *op, char *buf, size_t size);

/* ---- driver payload ------------------------------------------------------------------------------------- */
/* Vela's cmd_data: the tag "COP1", then driver actions, each a little-endian word whose low byte is the
 * action and whose bits 16-31 a length: OPTIMIZER_CONFIG (1; two words follow: the configuration Vela
 * compiled for and its version), NOP (5), COMMAND_STREAM (2; the length counts the command words that
 * follow). Exactly one COMMAND_STREAM. */
typedef struct mx_npu_payload {
  size_t stream_word;  /* the first command word: an index in 32-bit words from the start of the payload */
  size_t stream_words; /* the number of command words */
  uint32_t config[2];  /* OPTIMIZER_CONFIG's words */
  int has_config;
} mx_npu_payload;

/* Finds the command stream in a payload (bytes, any alignment). The words are little-endian: a caller whose
 * payload sits in 4-byte aligned memory on a little-endian core decodes them in place, others copy them. */
int mx_npu_payload_find(const uint8_t *data, size_t size, mx_npu_payload *out, mx_npu_error *err);

#endif
