/* mx_npu_error_vset: the one place an mx_npu_error is filled (npu_commands.h). */
#include <stdio.h>

#include "npu_commands.h"

int mx_npu_error_vset(mx_npu_error *err, mx_npu_status status, const char *prefix, int located, size_t word_index,
                      uint32_t opcode, uint32_t word, const char *what, va_list ap) {
  if (err == NULL) return -(int)status;
  err->status = (int32_t)status;
  err->opcode = opcode;
  err->word_index = word_index;
  err->word = word;
  int n;
  if (!located) {
    n = snprintf(err->message, sizeof err->message, "%s", prefix);
  } else if (opcode == MX_NPU_NO_OPCODE) {
    n = snprintf(err->message, sizeof err->message, "%sword %zu: ", prefix, word_index);
  } else {
    const char *name = mx_npu_opcode_name(opcode);
    n = snprintf(err->message, sizeof err->message, "%sword %zu: %s (0x%04X): ", prefix, word_index,
                 name ? name : "unknown opcode", (unsigned)opcode);
  }
  if (n >= 0 && (size_t)n < sizeof err->message) vsnprintf(err->message + n, sizeof err->message - (size_t)n, what, ap);
  return -(int)status;
}
