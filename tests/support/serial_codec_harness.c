/* The device's CRC-32 and SLIP (runtime_c/serial/) on stdin/stdout, for tests/test_serial_codec.py:
 *   harness crc      prints the CRC-32 of stdin as 8 hex digits
 *   harness slip     writes stdin SLIP-escaped (mx_slip_put; no ENDs)
 *   harness unslip   decodes stdin (mx_slip_take); per frame: u16 length, u8 overflowed, the bytes */
#include <stdio.h>
#include <string.h>

#include "serial_internal.h"

static void put(void *ctx, uint8_t c) {
  (void)ctx;
  putchar(c);
}

static uint8_t input[1 << 20];
static mx_serial state;

int main(int argc, char **argv) {
  const size_t n = fread(input, 1, sizeof input, stdin);
  if (argc < 2) return 2;
  if (strcmp(argv[1], "crc") == 0) {
    printf("%08x\n", (unsigned)mx_crc32(0, input, (uint32_t)n));
  } else if (strcmp(argv[1], "slip") == 0) {
    const mx_serial_io io = {NULL, NULL, put, NULL, NULL};
    for (size_t i = 0; i < n; i++) mx_slip_put(&io, input[i]);
  } else if (strcmp(argv[1], "unslip") == 0) {
    for (size_t i = 0; i < n; i++) {
      if (mx_slip_take(&state, input[i])) {
        putchar(state.rx_len & 0xFF);
        putchar(state.rx_len >> 8);
        putchar(state.rx_overflow);
        fwrite(state.rx, 1, state.rx_len, stdout);
        state.rx_len = 0;
        state.rx_overflow = 0;
      }
    }
  } else {
    return 2;
  }
  return 0;
}
