/* mx_npu_payload_find: the command stream inside Vela's driver payload (layout in npu_commands.h). */
#include "npu_commands.h"

#include <stdarg.h>

#define TAG_COP1 0x31504F43u /* "COP1" read as a little-endian word */
#define ACTION_OPTIMIZER_CONFIG 1u
#define ACTION_COMMAND_STREAM 2u
#define ACTION_NOP 5u

static uint32_t word_at(const uint8_t *data, size_t i) {
  const uint8_t *p = data + 4 * i;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Fills *err (when given) and returns -status; `what` continues "payload word N: ". */
static int payload_error(mx_npu_error *err, mx_npu_status status, size_t at, const char *what, ...) {
  va_list ap;
  va_start(ap, what);
  int rc = mx_npu_error_vset(err, status, "payload ", 1, at, MX_NPU_NO_OPCODE, 0, what, ap);
  va_end(ap);
  return rc;
}

int mx_npu_payload_find(const uint8_t *data, size_t size, mx_npu_payload *out, mx_npu_error *err) {
  if (out == NULL || (data == NULL && size != 0)) {
    return payload_error(err, MX_NPU_ERR_ARGUMENT, 0, "mx_npu_payload_find: NULL data or out");
  }
  *out = (mx_npu_payload){0};
  size_t words = size / 4, streams = 0;
  if (size % 4 != 0 || words == 0 || word_at(data, 0) != TAG_COP1) {
    return payload_error(err, MX_NPU_ERR_BAD_PAYLOAD, 0, "expected the tag COP1 and whole words, got %zu bytes", size);
  }
  size_t at = 1;
  while (at < words) {
    uint32_t action = word_at(data, at) & 0xFFu, length = word_at(data, at) >> 16;
    size_t header = at++;
    if (action == ACTION_NOP) continue;
    if (action == ACTION_OPTIMIZER_CONFIG) {
      if (words - at < 2) {
        return payload_error(err, MX_NPU_ERR_BAD_PAYLOAD, header, "OPTIMIZER_CONFIG needs 2 words, %zu remain",
                             words - at);
      }
      out->config[0] = word_at(data, at);
      out->config[1] = word_at(data, at + 1);
      out->has_config = 1;
      at += 2;
    } else if (action == ACTION_COMMAND_STREAM) {
      if (words - at < length) {
        return payload_error(err, MX_NPU_ERR_BAD_PAYLOAD, header, "COMMAND_STREAM of %zu words, %zu remain",
                             (size_t)length, words - at);
      }
      out->stream_word = at;
      out->stream_words = length;
      at += length;
      streams++;
    } else {
      return payload_error(err, MX_NPU_ERR_BAD_PAYLOAD, header, "unknown driver action %zu", (size_t)action);
    }
  }
  if (streams != 1) {
    return payload_error(err, MX_NPU_ERR_BAD_PAYLOAD, at, "%zu command streams, expected one", streams);
  }
  return 0;
}
