/* Added to serving firmware on a board with an NPU (mcu_export/firmware/serve_project.py), next to the Ethos-U
 * delegate and the NPU platform (boards/ethosu/npu_platform.c). The UART carries protocol frames only: a report
 * line there would land between frames and cost the host a resend, and the host learns what it needs from the
 * protocol (a failed job is the INVOKE's status 0x030A, the delegate's time is in PROFILE). */
#include <stdbool.h>

#include "ethosu_backend.h"

bool mx_ethosu_platform_quiet(void) { return true; }
