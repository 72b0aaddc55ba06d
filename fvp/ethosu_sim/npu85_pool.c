/* Ethos-U85 NPU_OP_POOL. */
#include "npu85_exec.h"

int mx_npu85_exec_pool(mx_npu_exec *x) {
  return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "POOL is not implemented on the Ethos-U85");
}
