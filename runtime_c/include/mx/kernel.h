#ifndef MX_KERNEL_H
#define MX_KERNEL_H
/* The kernel calling convention. Arguments arrive exactly as ExecuTorch's out-variant convention lays
 * them out in a KernelCall: the operator schema's arguments in order (kwarg-only `out` included), then
 * its return values (the out tensor again, or a TensorList of the outs when there are several).
 * Kernels check every argument (count, tag, dtype, shapes) and return an error rather than trust the file. */
#include "mx/errors.h"
#include "mx/value.h"

typedef struct mx_kernel_ctx {
  uint32_t instruction;   /* index of the instruction being run, for error reports and profiling */
} mx_kernel_ctx;

typedef mx_error (*mx_kernel_fn)(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs);

typedef struct mx_kernel_entry {
  const char *name;       /* e.g. "aten::convolution" */
  const char *overload;   /* e.g. "out" */
  mx_kernel_fn fn;
} mx_kernel_entry;

/* Generated from the op table (codegen/kernel_table.c.j2): the kernels this build links, and no others. */
extern const mx_kernel_entry mx_kernel_table[];
extern const uint32_t mx_kernel_table_len;

#endif
