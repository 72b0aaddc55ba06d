/* Default platform hooks: no-ops. A board (or a profiler) defines strong versions; kept in a file of
 * their own so the archive member is only pulled in when nobody else defines them. */
#include "mx/runtime.h"

__attribute__((weak)) void mx_platform_op_begin(uint32_t instruction) { (void)instruction; }

__attribute__((weak)) void mx_platform_op_end(uint32_t instruction, mx_error status) {
  (void)instruction;
  (void)status;
}
