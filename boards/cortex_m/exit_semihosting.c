/* Simulator exit: SYS_EXIT_EXTENDED (0x20) with {ADP_Stopped_ApplicationExit, code} makes QEMU and
 * the FVPs stop with `code` as their own exit status. */
#include <stdint.h>

#include "mx_platform.h"

int32_t mx_semihost_call(uint32_t op, const void *params);

void mx_platform_exit(int code) {
  const uint32_t params[2] = {0x20026u, (uint32_t)code};
  mx_semihost_call(0x20u, params);
  for (;;) {   /* only reached when nothing serves semihosting */
    __asm volatile("wfi");
  }
}
