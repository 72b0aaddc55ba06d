/* The one load the QEMU icount plugin watches (fvp/qemu_icount_plugin.c): the address read, relative
 * to __mx_icount_window, encodes the marker (2*tag = begin, 2*tag+1 = end). Kept out of line so the
 * plugin finds exactly one memory access inside this function's address range. */
#include <stdint.h>

#include "mx_platform.h"

__attribute__((noinline, used)) void mx_icount_hit(const volatile uint8_t *address) { (void)*address; }
