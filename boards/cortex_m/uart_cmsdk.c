/* Arm CMSDK APB UART (MPS2/MPS3 boards, Corstone FVPs): DATA +0, STATE +4 (bit0 TX full,
 * bit1 RX full), CTRL +8 (bit0 TX enable, bit1 RX enable). MX_UART_BASE comes from the board file. */
#include <stdint.h>

#include "mx_platform.h"

#define MX_UART_DATA (*(volatile uint32_t *)(MX_UART_BASE + 0x0u))
#define MX_UART_STATE (*(volatile uint32_t *)(MX_UART_BASE + 0x4u))
#define MX_UART_CTRL (*(volatile uint32_t *)(MX_UART_BASE + 0x8u))
#define MX_UART_BAUDDIV (*(volatile uint32_t *)(MX_UART_BASE + 0x10u))

void mx_uart_init(void) {
  MX_UART_BAUDDIV = 16u;   /* the minimum legal divider; simulators ignore the rate */
  MX_UART_CTRL = 0x3u;
}

void mx_platform_putc(int c) {
  while (MX_UART_STATE & 0x1u) {
  }
  MX_UART_DATA = (uint32_t)(uint8_t)c;
}

int mx_platform_getc(void) {
  while (!(MX_UART_STATE & 0x2u)) {
  }
  return (int)(MX_UART_DATA & 0xFFu);
}
