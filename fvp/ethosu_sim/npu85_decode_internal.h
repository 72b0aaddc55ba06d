/* What npu85_decode.c and npu85_decode_reads.c share: the U85 registers' dense indices (state.u85.written). Internal
 * to the U85 decoder (npu_commands.h is the interface). */
#ifndef MX_NPU85_DECODE_INTERNAL_H
#define MX_NPU85_DECODE_INTERNAL_H

#include "npu_decode_internal.h"

/* Dense index of each U85 register (and NPU_OP_BRANCH's slot, unused), for state.u85.written. */
enum {
#define MX_NPU85_OP(name, code, bits)
#define MX_NPU85_SET0(name, code, bits) R85_##name,
#define MX_NPU85_SET1(name, code, bits) R85_##name,
#include "npu85_opcodes.def"
#undef MX_NPU85_OP
#undef MX_NPU85_SET0
#undef MX_NPU85_SET1
  R85_COUNT
};
_Static_assert(R85_COUNT <= 32 * MX_NPU85_REG_WORDS, "the written bitmap must hold every U85 register");

/* 0, or fails (UNSET_REGISTER) when the operation of `c` reads a U85 register the stream never wrote. */
int mx_npu85_check_reads(const mx_npu_state *s, const site *c, unsigned param);

#endif
