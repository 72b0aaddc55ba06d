#ifndef MX_META_POOL_H
#define MX_META_POOL_H
/* How many of each thing a method holds, and the bytes they take in the metadata pool (mx/meta_pool.def
 * lists the regions). The pool is laid out from the counts alone, so mx_program_method_meta, mx_method_load
 * and a firmware's static pool cannot disagree on its size. */
#include "mx/runtime.h"

/* Counts are 64-bit: many values may share one long vector, so their sum can exceed the file size.
 * delegate_state is in bytes: each delegate's backend state_bytes, rounded up to 8. lives is tensors when no
 * declared arena holds MX_LIVES_BYTES(tensors), else 0 (the load-time scratch then sits in that arena). */
typedef struct mx_meta_counts {
  uint64_t values, tensors, lives, ints, doubles, tensor_refs, instrs, args, ops, inputs, outputs, delegates,
      delegate_state;
} mx_meta_counts;

#define MX_LIVES_BYTES(tensors) ((uint64_t)(tensors)*4u * sizeof(uint32_t))
/* An arena this large holds the scratch aligned up to 4 wherever the arena starts. */
#define MX_LIVES_ARENA_BYTES(tensors) (MX_LIVES_BYTES(tensors) + 3u)

/* Region indices, in layout order. */
enum {
#define X(region, count, elem_size) MX_META_##region,
#include "mx/meta_pool.def"
#undef X
  MX_META_REGIONS
};

#define MX_META_ALIGN8(n) (((n) + 7u) & ~(uint64_t)7u)
/* Bytes of one region: every region starts 8-aligned, so the pool is the sum of these. An integer
 * constant expression for constant counts (the firmware sizes its pool array with it). */
#define MX_META_REGION_BYTES(count, elem_size) MX_META_ALIGN8((uint64_t)(count) * (elem_size))

/* Counts of method `name` as the loader computes them (for tools and tests that check the exporter). */
mx_error mx_program_method_counts(const mx_program *program, const char *name, mx_meta_counts *counts);

#endif
