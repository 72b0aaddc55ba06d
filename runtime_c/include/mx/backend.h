#ifndef MX_BACKEND_H
#define MX_BACKEND_H
/* Delegate backends: what runs a DelegateCall. As in ExecuTorch, a program's ExecutionPlan lists its
 * delegates (a backend id and the backend's "processed" blob, compiled ahead of time), and a DelegateCall
 * hands one delegate the EValues it works on: the delegate's inputs, then its outputs.
 *
 * A backend sees its blob once, at load (init), and keeps what it needs in a state of state_bytes bytes
 * that the loader carves from the metadata pool (8-byte aligned); execute then gets that state back.
 * The exporter sizes the pool ahead of time, so state_bytes must be the same on every target: fixed-width
 * fields, no pointers (keep offsets into the blob if the blob is needed later). */
#include "mx/kernel.h"

typedef struct mx_backend {
  const char *id;              /* BackendDelegate.id it runs, e.g. "MxTestDelegate" */
  uint32_t state_bytes;
  /* Validates the blob (the program buffer holds it for the method's lifetime) and fills `state`,
   * which arrives zeroed. A blob the backend cannot run is an error here, not at execute. */
  mx_error (*init)(const uint8_t *processed, uint32_t size, void *state);
  /* Checks args (count, tags, dtypes, shapes) like a kernel does, then runs. */
  mx_error (*execute)(void *state, mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs);
  /* Optional (NULL: none): checks one DelegateCall's arguments at load, after init, against the state init
   * filled, as a kernel's check does (MX_ARG_ERROR(i, e) names argument i): what a program gets wrong about a
   * delegate is then a load error. */
  mx_arg_error (*check)(const void *state, mx_value *const *args, uint32_t nargs);
} mx_backend;

/* One loaded delegate, in the metadata pool. */
typedef struct mx_delegate {
  const mx_backend *backend;   /* NULL when loaded with skip_kernels */
  void *state;
  const char *id;              /* in place in the program */
} mx_delegate;

/* Generated with the kernel table (codegen/kernel_table.c.j2): the backends this build links. */
extern const mx_backend *const mx_backend_table[];
extern const uint32_t mx_backend_table_len;

/* The runtime's delegate half (src/delegate_*.c) is reached only through this pointer, which the generated
 * table sets to &mx_delegate_support when it links a backend and to NULL otherwise: a build without
 * backends links none of that code, and a DelegateCall in its program is refused at load. */
struct mx_delegate_support;
extern const struct mx_delegate_support mx_delegate_support;
extern const struct mx_delegate_support *const mx_delegates;

#endif
