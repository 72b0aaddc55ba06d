/* Arm PL011 UART (RP2350 UART0): DR +0x00, FR +0x18 (bit4 RXFE, bit5 TXFF), IBRD +0x24, FBRD +0x28,
 * LCR_H +0x2C, CR +0x30. MX_UART_BASE, MX_UART_CLOCK_HZ and MX_UART_BAUD come from the board file. */
#include <stdint.h>

#include "mx_platform.h"

#define MX_PL011(off) (*(volatile uint32_t *)(MX_UART_BASE + (off)))
#define MX_PL011_DR MX_PL011(0x00u)
#define MX_PL011_FR MX_PL011(0x18u)
#define MX_PL011_IBRD MX_PL011(0x24u)
#define MX_PL011_FBRD MX_PL011(0x28u)
#define MX_PL011_LCR_H MX_PL011(0x2Cu)
#define MX_PL011_CR MX_PL011(0x30u)

void mx_uart_init(void) {
    /* Baud divisor = clock / (16 * baud) as a 16.6 fixed-point number, rounded. */
  uint32_t div64 = (uint32_t)((8ull * MX_UART_CLOCK_HZ / MX_UART_BAUD + 1u) / 2u);
  MX_PL011_CR = 0;
  MX_PL011_IBRD = div64 >> 6;
  MX_PL011_FBRD = div64 & 0x3Fu;
  MX_PL011_LCR_H = (3u << 5) | (1u << 4);   /* 8 data bits, FIFOs on; the write latches the divisors */
  MX_PL011_CR = (1u << 0) | (1u << 8) | (1u << 9);   /* UARTEN, TXE, RXE */
}

void mx_platform_putc(int c) {
  while (MX_PL011_FR & (1u << 5)) {
  }
  MX_PL011_DR = (uint32_t)(uint8_t)c;
}

int mx_platform_getc(void) {
  while (MX_PL011_FR & (1u << 4)) {
  }
  return (int)(MX_PL011_DR & 0xFFu);
}
