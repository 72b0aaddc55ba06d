#ifndef MX_OVERLAP_H
#define MX_OVERLAP_H
/* The overlap rule of elementwise kernels (mx_kernel_entry.overlap; mcu_export/ops/overlap.py says which): every
 * path of these kernels is one forward sweep that writes element i after reading element i of each operand with
 * the out's sizes, so the out may share an operand's bytes when it starts at or below it and its elements are no
 * wider (a wider element would overrun input not yet read). */
#include "mx/kernel.h"

bool mx_overlap_elementwise(mx_value *const *args, uint32_t arg, uint32_t out);

#endif
