#ifndef MX_RUNTIME_H
#define MX_RUNTIME_H
/* The runtime's public API: open a .pte program in place, load one of its methods into caller-provided
 * memory (a metadata pool and the planned arenas), feed inputs, execute, read outputs. No malloc, no I/O. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mx/backend.h"
#include "mx/errors.h"
#include "mx/kernel.h"
#include "mx/value.h"

/* ---- program ---------------------------------------------------------------------------------- */

/* Views into the program buffer; the buffer must outlive the program and every method loaded from it.
 * Constant tensors point into it, so it should be aligned to 16 bytes. */
typedef struct mx_program {
  const uint8_t *data;
  uint32_t size;              /* whole file */
  uint32_t fb_size;           /* flatbuffer part (program_size of the extended header, else the file) */
  uint32_t segment_base;      /* file offset of segment data (0 without an extended header; UINT32_MAX past 4 GiB) */
  bool has_header;
  /* internal views (flatbuffer positions) */
  uint32_t root_pos, plans_pos, plans_len;
  uint32_t const_buffers_pos, const_buffers_len;
  const uint8_t *const_segment;       /* constant segment data, or NULL when constants are inline */
  uint32_t const_segment_size;
  uint32_t const_offsets_pos, const_offsets_len;
} mx_program;

mx_error mx_program_init(mx_program *program, const void *data, size_t size);
uint32_t mx_program_method_count(const mx_program *program);
/* Name of method i, NUL-terminated, pointing into the program. */
mx_error mx_program_method_name(const mx_program *program, uint32_t i, const char **name);

/* What a caller must provide to load a method. */
typedef struct mx_method_meta {
  uint32_t plan_index;
  size_t meta_pool_bytes;     /* exact metadata pool size mx_method_load needs */
  uint32_t arena_count;       /* entries of non_const_buffer_sizes; index 0 is reserved and unused */
  int32_t bad_value;          /* when refused: the value the check stopped at, else -1 */
} mx_method_meta;

mx_error mx_program_method_meta(const mx_program *program, const char *name, mx_method_meta *meta);
/* Declared size of planned arena `memory_id` (0 for the reserved id 0). */
mx_error mx_program_arena_size(const mx_program *program, const mx_method_meta *meta, uint32_t memory_id,
                               uint64_t *size);

/* ---- method ----------------------------------------------------------------------------------- */

typedef struct mx_span {
  void *ptr;
  size_t size;
} mx_span;

/* The work of one call (sig: its kernel's signature; NULL for a DelegateCall: its tensors only), bounded from its
 * checked shapes (src/method_cost.c). A config that names it counts mx_method_cost; one that does not (the model
 * firmware, which sets no limit) links none of its code. */
typedef uint64_t (*mx_cost_fn)(const uint8_t *sig, mx_value *const *args, uint32_t nargs);
uint64_t mx_call_cost(const uint8_t *sig, mx_value *const *args, uint32_t nargs);

typedef struct mx_method_config {
  void *meta_pool;            /* all mx_value / mx_tensor / list storage comes from here */
  size_t meta_pool_size;
  const mx_span *arenas;      /* index = memory_id; arenas[0] is never used. Loading may build its checks in the
                                 largest (mx/meta_load.def): load before filling inputs */
  uint32_t arena_count;
  bool skip_kernels;          /* validate everything but leave operators unresolved and delegates without
                                 backend and init (inspection tools) */
  uint64_t max_cost;          /* refuse a method whose mx_method_cost is above it (MX_ERR_TOO_COSTLY); 0: no limit */
  mx_cost_fn cost;            /* mx_call_cost: count mx_method_cost (a max_cost needs it: MX_ERR_BAD_USAGE without);
                                 NULL: mx_method_cost is 0 */
} mx_method_config;

/* KERNEL and DELEGATE are the schema's InstructionArguments tags (the loader refuses MoveCall, JumpFalse and
 * Free: no control flow). The loader's fusions (src/fuse_*.c) add two kinds no file holds: FUSED calls
 * mx_kernel_table[op], which the .pte does not name, in place of a run of instructions; FUSED_AWAY marks the
 * rest of that run, which does nothing. */
enum { MX_INSTR_KERNEL = 1, MX_INSTR_DELEGATE = 2, MX_INSTR_FUSED = 0x80, MX_INSTR_FUSED_AWAY = 0x81 };

/* 12 bytes on a 32-bit target. A call's arguments are value indices, arg_ids[first_arg..first_arg + nargs). */
typedef struct mx_instr {
  uint8_t kind;               /* MX_INSTR_* */
  uint16_t nargs;
  uint32_t op;                /* kernel: operator index; delegate: delegate index; fused: mx_kernel_table index */
  uint32_t first_arg;
} mx_instr;

/* One call's arguments, read from the program before the call (src/call_frame.c) into regions of the pool sized
 * for the largest call. */
typedef struct mx_frame {
  mx_value **argv;
  mx_value *values;
  mx_tensor *tensors;
  int64_t *ints;
  double *doubles;
  mx_tensor **refs;
  uint32_t cap_args, cap_tensors, cap_ints, cap_doubles, cap_refs;
  uint32_t values_pos;                /* the plan's EValues (a flatbuffer vector's first element) */
} mx_frame;

/* Where a load or execution failed; fields are -1 / NULL when they do not apply. Indices fit in 32 bits:
 * each entry of a vector in the (at most 4 GiB) file takes at least 4 bytes. */
typedef struct mx_error_site {
  int32_t instruction;
  int32_t arg;                /* argument index within the instruction's kernel call */
  int32_t value;
  int32_t op_index;
  int32_t delegate_index;
  const char *op_name;
  const char *op_overload;
  const char *delegate_id;
} mx_error_site;

typedef struct mx_method {
  const mx_program *program;
  mx_value *values;               /* every value, while the method loads (NULL after: mx/meta_load.def) */
  mx_value **load_args;           /* every call's arguments at its first_arg, while the method loads */
  uint32_t value_count;
  const uint32_t *inputs;         /* value indices, while the method loads (io_values keeps what the caller needs) */
  uint32_t input_count;
  const uint32_t *outputs;
  uint32_t output_count;
  mx_value *io_values;            /* the inputs then the outputs, kept for the caller */
  mx_tensor *io_tensors;          /* their tensors, at the same positions */
  mx_instr *instrs;
  uint32_t instr_count;
  uint16_t *arg_ids;              /* value index of every call's arguments */
  mx_span *arenas;                /* as the config gave them */
  uint32_t arena_count;
  mx_frame frame;
  const mx_kernel_entry **ops;    /* resolved kernels, NULL entries when loaded with skip_kernels */
  const char **op_names;          /* while the method loads; after, a resolved kernel's entry has its names */
  const char **op_overloads;
  uint32_t op_count;
  mx_delegate *delegates;
  bool kernels_resolved;
  uint64_t cost;
  mx_error_site site;
} mx_method;

/* The arguments of instruction `ins` while the method loads (kernel checks, the plan check, fusions). */
static inline mx_value **mx_instr_load_args(const mx_method *m, const mx_instr *ins) {
  return m->load_args + ins->first_arg;
}

mx_error mx_method_load(const mx_program *program, const char *name, const mx_method_config *cfg, mx_method *method);
mx_error mx_method_execute(mx_method *method);

/* An upper bound of one execution's work, in element operations and multiply-accumulates, from the checked
 * shapes (src/method_cost.c): what mx_method_config.max_cost limits. 0 when the config named no cost function. */
uint64_t mx_method_cost(const mx_method *method);

uint32_t mx_method_input_count(const mx_method *method);
uint32_t mx_method_output_count(const mx_method *method);
/* NULL when i is out of range or the input/output is not a tensor. */
mx_tensor *mx_method_input(const mx_method *method, uint32_t i);
mx_tensor *mx_method_output(const mx_method *method, uint32_t i);
/* The place of the last error of mx_method_load / mx_method_execute. */
const mx_error_site *mx_method_error_site(const mx_method *method);

/* A loader fusion (src/fuse_*.c) rewrites runs of a loaded method's instructions into MX_INSTR_FUSED calls.
 * The generated kernel table lists the fusions that end in the kernels it links, and mx_method_load runs
 * them in that order; a build without those kernels links no fusion code. */
typedef void (*mx_fusion_fn)(mx_method *method);
extern const mx_fusion_fn mx_fusions[];
extern const uint32_t mx_fusion_count;

/* hardswish/hardsigmoid as passes/decompose_hard_activations.py writes them (add, clamp[, mul], div). */
void mx_fuse_hard_ramps(mx_method *method);

/* ---- platform seams (weak no-op defaults; Cortex-M builds turn them into per-op profile markers) ---- */
void mx_platform_op_begin(uint32_t instruction);
void mx_platform_op_end(uint32_t instruction, mx_error status);

#endif
