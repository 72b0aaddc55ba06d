/* The kernel table of a build configured without MX_KERNEL_TABLE_SOURCE: no kernels, fusions or delegate
 * backends (parse/inspect only). */
#include "mx/backend.h"
#include "mx/runtime.h"

const mx_kernel_entry mx_kernel_table[1] = {{0, 0, 0, 0, 0, 0}};
const uint32_t mx_kernel_table_len = 0;
const mx_arg_bounds mx_kernel_arg_bounds[1] = {{0, 0}};

const mx_fusion_fn mx_fusions[1] = {0};
const uint32_t mx_fusion_count = 0;
const mx_backend *const mx_backend_table[1] = {0};
const uint32_t mx_backend_table_len = 0;
const struct mx_delegate_support *const mx_delegates = 0;
