/* The kernel table of a build configured without MX_KERNEL_TABLE_SOURCE: no kernels (parse/inspect only). */
#include "mx/kernel.h"

const mx_kernel_entry mx_kernel_table[1] = {{0, 0, 0, 0, 0}};
const uint32_t mx_kernel_table_len = 0;
const mx_arg_bounds mx_kernel_arg_bounds[1] = {{0, 0}};
