#ifndef MX_KERNEL_H
#define MX_KERNEL_H
/* The kernel calling convention. Arguments arrive exactly as ExecuTorch's out-variant convention lays
 * them out in a KernelCall: the operator schema's arguments in order (kwarg-only `out` included), then
 * its return values (the out tensor again, or a TensorList of the outs when there are several); their
 * positions are named in mx/op_args.h, generated from the op table.
 *
 * A kernel is two functions. Its check runs once, when the method loads, after the loader has checked the
 * argument count, every argument's tag and the value ranges the op table declares (mx_kernel_check_call):
 * it checks dtypes, shapes and values, everything the file could get wrong, since shapes are planned ahead of
 * time. It relies on what the loader guarantees of every value it builds: set pointers, well-formed tensors
 * (tensor_load.c), metadata that nothing changes after load (no MoveCall is loaded). Its execute function then reads its arguments as they
 * are and computes. */
#include "mx/errors.h"
#include "mx/op_args.h"
#include "mx/value.h"

typedef struct mx_kernel_ctx {
  uint32_t instruction;   /* index of the instruction being run, for error reports and profiling */
} mx_kernel_ctx;

typedef mx_error (*mx_kernel_fn)(mx_kernel_ctx *ctx, mx_value *const *args);

/* A check answers MX_OK, or an mx_error that may name the argument at fault: MX_ARG_ERROR(i, e) carries
 * argument i + 1 in the bits above the code's 11 (0: none in particular; arguments past the 30th go unnamed).
 * The result fits 16 bits, so each refusal in a check is one small constant in flash. (Not an mx_error:
 * arm-none-eabi makes enums as narrow as their values.) */
typedef uint32_t mx_arg_error;
typedef mx_arg_error (*mx_kernel_check_fn)(mx_value *const *args);

#define MX_ARG_ERROR(i, e) ((uint32_t)(e) | ((uint32_t)(i) < 31u ? ((uint32_t)(i) + 1u) << 11 : 0u))
/* The plain code of a check's answer, and the argument it names (-1: none). */
#define MX_ERROR_CODE(r) ((mx_error)((uint32_t)(r)&0x7FFu))
#define MX_ERROR_ARG(r) ((int32_t)((uint32_t)(r) >> 11) - 1)

/* What a schema type accepts; the loader checks each argument's tag against its kind (the low nibble of a
 * kind byte; the high nibble indexes mx_kernel_arg_bounds, 0 for no range). */
typedef enum mx_arg_kind {
  MX_KIND_TENSOR,         /* Tensor */
  MX_KIND_OPT_TENSOR,     /* Tensor? (Null or None for absent) */
  MX_KIND_INT,            /* int, ScalarType */
  MX_KIND_OPT_INT,
  MX_KIND_INT_LIST,       /* int[] */
  MX_KIND_OPT_INT_LIST,
  MX_KIND_FLOAT,          /* float: a Double, or an Int as a whole-valued float */
  MX_KIND_BOOL,
  MX_KIND_SCALAR,         /* Scalar: Int, Double or Bool */
  MX_KIND_OPT_SCALAR,
  MX_KIND_TENSOR_LIST,    /* Tensor[]: no None items */
  MX_KIND_RET,            /* the return of a single-out op: the out tensor itself */
  MX_KIND_RET_LIST,       /* the return of a multi-out op: a TensorList of the outs, in order */
  MX_KIND_STRING,         /* str (gelu's approximate) */
  MX_KIND_OPT_FLOAT_LIST  /* float[]? (upsampling's scale_factors) */
} mx_arg_kind;

/* A kernel's signature bytes: the argument count, the index of the first out argument (what the return repeats),
 * the cost rule with the argument it reads (mcu_export/ops/cost.py), then the mx_arg_kind of each argument. */
enum { MX_SIG_NARGS, MX_SIG_FIRST_OUT, MX_SIG_COST_RULE, MX_SIG_COST_ARG, MX_SIG_KINDS };

/* What multiplies the largest tensor argument's element count in an instruction's cost (src/method_cost.c). */
typedef enum mx_cost_rule {
  MX_COST_ELEMENTS,   /* nothing: one pass over each tensor */
  MX_COST_ROWS,       /* the argument's elements per leading row */
  MX_COST_COLS,       /* the argument's elements per trailing column */
  MX_COST_LAST,       /* the argument's trailing size */
  MX_COST_WINDOW,     /* the product of the argument's ints */
  MX_COST_CONV        /* as ROWS, per input element when there are more (a transposed convolution) */
} mx_cost_rule;

/* The kernel's overlap rule (NULL: none): whether its out, args[out], may share bytes with input args[arg] where the
 * plan put them, given the order in which the kernel reads and writes (mcu_export/ops/overlap.py). The loader asks
 * it for each pair that a plan overlaps at the one instruction where the input is read for the last time and the
 * out first written (src/plan_verify.c). */
typedef bool (*mx_kernel_overlap_fn)(mx_value *const *args, uint32_t arg, uint32_t out);

typedef struct mx_kernel_entry {
  const char *name;       /* e.g. "aten::convolution" */
  const char *overload;   /* e.g. "out" */
  mx_kernel_fn fn;        /* execute */
  mx_kernel_check_fn check; /* load-time check of dtypes, shapes and values */
  const uint8_t *sig;      /* the signature, laid out as MX_SIG_* says */
  mx_kernel_overlap_fn overlap;
} mx_kernel_entry;

/* Generated from the op table (codegen/kernel_table.c.j2): the kernels this build links, and no others. */
extern const mx_kernel_entry mx_kernel_table[];
extern const uint32_t mx_kernel_table_len;

/* Inclusive bounds of an int argument's value range. */
typedef struct mx_arg_bounds {
  int32_t lo, hi;
} mx_arg_bounds;

/* Generated with the kernel table: the ranges its kernels declare, indexed by the high nibble of a kind (entry
 * 0 unused). */
extern const mx_arg_bounds mx_kernel_arg_bounds[];

/* Count, tags and ranges against k's schema, then k's own check: MX_OK or an error naming the argument at
 * fault (MX_ARG_ERROR). */
mx_arg_error mx_kernel_check_call(const mx_kernel_entry *k, mx_value *const *args, uint32_t nargs);

/* That every out of a checked call (args[first_out..nargs-1), lists included) is planned and is no other argument:
 * MX_ERR_CONSTANT_WRITE or MX_ERR_PLAN_OVERLAP naming the out. */
mx_arg_error mx_check_outs(mx_value *const *args, uint32_t nargs, uint32_t first_out);

/* In a check: evaluate expr, whose error names no argument; on error, name argument i and return it. */
#define MX_CHECK(i, expr)                      \
  do {                                         \
    uint32_t mx_check_err_ = (uint32_t)(expr); \
    if (mx_check_err_ != MX_OK) {              \
      return MX_ARG_ERROR(i, mx_check_err_);   \
    }                                          \
  } while (0)

/* In a check: when cond holds, argument i is at fault with error e. */
#define MX_REFUSE_IF(cond, i, e) \
  do {                           \
    if (cond) {                  \
      return MX_ARG_ERROR(i, e); \
    }                            \
  } while (0)

#endif
