/* Arm semihosting on M-profile: BKPT 0xAB with the operation in r0 and a parameter block in r1.
 * QEMU (-semihosting-config enable=on,target=native) and the FVPs (cpu0.semihosting-enable=1)
 * serve these calls with files on the host, relative to the simulator's working directory. */
#include <stdint.h>
#include <string.h>

#include "mx_platform.h"

enum { SYS_OPEN = 0x01, SYS_CLOSE = 0x02, SYS_WRITE = 0x05, SYS_READ = 0x06, SYS_SEEK = 0x0A, SYS_FLEN = 0x0C };

/* On silicon, BKPT without a debugger to serve it is a HardFault: boards that may run without one link
 * cortex_m/semihost_attached.c, which replaces this, and their file calls then fail (-1) instead. */
__attribute__((weak)) int mx_semihost_attached(void) { return 1; }

int32_t mx_semihost_call(uint32_t op, const void *params) {
  if (!mx_semihost_attached()) {
    return -1;
  }
  register uint32_t r0 __asm("r0") = op;
  register const void *r1 __asm("r1") = params;
  __asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return (int32_t)r0;
}

int mx_semihost_open(const char *path, int mode) {
  const uint32_t params[3] = {(uint32_t)(uintptr_t)path, (uint32_t)mode, (uint32_t)strlen(path)};
  return mx_semihost_call(SYS_OPEN, params);
}

int mx_semihost_close(int handle) {
  const uint32_t params[1] = {(uint32_t)handle};
  return mx_semihost_call(SYS_CLOSE, params);
}

int mx_semihost_read(int handle, void *buf, size_t len) {
  const uint32_t params[3] = {(uint32_t)handle, (uint32_t)(uintptr_t)buf, (uint32_t)len};
  return mx_semihost_call(SYS_READ, params);
}

int mx_semihost_write(int handle, const void *buf, size_t len) {
  const uint32_t params[3] = {(uint32_t)handle, (uint32_t)(uintptr_t)buf, (uint32_t)len};
  return mx_semihost_call(SYS_WRITE, params);
}

long mx_semihost_flen(int handle) {
  const uint32_t params[1] = {(uint32_t)handle};
  return mx_semihost_call(SYS_FLEN, params);
}

int mx_semihost_seek(int handle, uint32_t position) {
  const uint32_t params[2] = {(uint32_t)handle, position};
  return mx_semihost_call(SYS_SEEK, params);
}
