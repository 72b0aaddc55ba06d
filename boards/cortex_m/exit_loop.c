/* Real-board exit: report the code on the UART and sleep; nothing is waiting for an exit status. */
#include "mx_platform.h"

void mx_platform_exit(int code) {
  mx_platform_puts("\nmx: exit ");
  mx_platform_put_dec(code);
  mx_platform_puts("\n");
  for (;;) {
    __asm volatile("wfi");
  }
}
