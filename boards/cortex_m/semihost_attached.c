/* Semihosting only while a debugger is attached (real boards): a debugger that halts the core, and so can serve BKPT
 * 0xAB, has set DHCSR.C_DEBUGEN (Armv8-M Architecture Reference Manual, Debug Halting Control and Status Register).
 * Without one the firmware's file calls fail, and main reports an I/O error on the UART instead of a hard fault. */
#include <stdint.h>

#include "mx_platform.h"

#define MX_DHCSR (*(volatile const uint32_t *)0xE000EDF0u)
#define MX_DHCSR_C_DEBUGEN (1u << 0)

int mx_semihost_attached(void) { return (MX_DHCSR & MX_DHCSR_C_DEBUGEN) != 0; }
