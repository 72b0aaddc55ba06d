/* mx_platform_init and the small text helpers shared by every Cortex-M board. */
#include <stdint.h>

#include "mx_platform.h"

void mx_uart_init(void);
void mx_ticks_init(void);

/* An SoC that needs clocks or resets released before its UART works replaces this. */
__attribute__((weak)) void mx_soc_init(void) {}

void mx_platform_init(void) {
  mx_soc_init();
  mx_uart_init();
  mx_ticks_init();
}

void mx_platform_puts(const char *s) {
  while (*s) {
    mx_platform_putc(*s++);
  }
}

void mx_platform_put_hex(uint32_t value) {
  mx_platform_puts("0x");
  for (int shift = 28; shift >= 0; shift -= 4) {
    mx_platform_putc("0123456789abcdef"[(value >> shift) & 0xFu]);
  }
}

void mx_platform_put_dec(int32_t value) {
  char digits[11];
  int n = 0;
  uint32_t v = value < 0 ? 0u - (uint32_t)value : (uint32_t)value;
  if (value < 0) {
    mx_platform_putc('-');
  }
  do {
    digits[n++] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v != 0u);
  while (n > 0) {
    mx_platform_putc(digits[--n]);
  }
}
