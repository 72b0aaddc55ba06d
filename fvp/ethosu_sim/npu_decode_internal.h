/* What npu_decode.c and npu_decode_reads.c share: the command being decoded, error reporting, which registers
 * the stream has written. Internal to the decoder (npu_commands.h is the interface). */
#ifndef MX_NPU_DECODE_INTERNAL_H
#define MX_NPU_DECODE_INTERNAL_H

#include "npu_commands.h"

#include <stdarg.h>

static inline int is_written(const mx_npu_state *s, int reg) { return (s->written[reg / 32] >> (reg % 32)) & 1u; }

/* ---- errors ------------------------------------------------------------------------------------------- */
/* Fills *err (when given) and returns -status. `what` continues "word N: NAME (0xOPCODE): ". */
static inline int fail(mx_npu_error *err, mx_npu_status status, size_t at, uint32_t opcode, uint32_t word,
                       const char *what, ...) {
  va_list ap;
  va_start(ap, what);
  int rc = mx_npu_error_vset(err, status, "", 1, at, opcode, word, what, ap);
  va_end(ap);
  return rc;
}

/* The command being decoded, for error messages. */
typedef struct {
  size_t at;
  uint32_t opcode;
  uint32_t word;
  mx_npu_error *err;
} site;

/* npu_decode_reads.c: 0, or fails (UNSET_REGISTER) when the operation of `c` reads a register the stream never
 * wrote. */
int mx_npu_check_reads(const mx_npu_state *s, const site *c, unsigned param);

#endif
