/* Ethos-U85 NPU_OP_ELEMENTWISE. */
#include "npu85_exec.h"

int mx_npu85_exec_elementwise(mx_npu_exec *x) {
  return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "ELEMENTWISE is not implemented on the Ethos-U85");
}
