#ifndef MX_META_POOL_H
#define MX_META_POOL_H
/* How many of each thing a method holds, and the bytes they take in the metadata pool (mx/meta_pool.def
 * lists the regions). The pool is laid out from the counts alone, so mx_program_method_meta, mx_method_load
 * and a firmware's static pool cannot disagree on its size. */
#include "mx/runtime.h"

/* Counts are 32-bit and saturate (mx_meta_add): many values may share one long vector, so a sum can exceed the
 * file size; mx_layout_meta refuses a saturated count (MX_ERR_TOO_LARGE). delegate_state is in bytes: each
 * delegate's backend state_bytes, rounded up to 8. io is inputs + outputs, arenas the entries of non_const_buffer_sizes and largest_arena the largest of them in bytes. frame_* are the
 * most any one call needs: its arguments, and the tensors (list items included), ints, doubles and tensor
 * references they hold. */
typedef struct mx_meta_counts {
  uint32_t values, tensors, ints, doubles, tensor_refs, instrs, args, ops, inputs, outputs, io, arenas, delegates,
      delegate_state, frame_args, frame_tensors, frame_ints, frame_doubles, frame_refs;
  uint64_t largest_arena;
} mx_meta_counts;

/* a + b, or UINT32_MAX when that does not fit: a count past 32 bits stays past them */
static inline uint32_t mx_meta_add(uint32_t a, uint64_t b) {
  const uint64_t s = (uint64_t)a + b;
  return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

/* Whether the load-only regions (mx/meta_load.def, `load_bytes` in all) go in the largest arena: when it holds
 * them wherever it starts (aligned up to 8). The runtime and a firmware's static pool decide alike. */
#define MX_META_LOAD_IN_ARENA(load_bytes, largest_arena) ((uint64_t)(largest_arena) >= (uint64_t)(load_bytes) + 7u)

/* Region indices, in layout order: the lasting regions, then the load-only ones. */
enum {
#define X(region, count, elem_size) MX_META_##region,
#include "mx/meta_pool.def"
#include "mx/meta_load.def"
#undef X
  MX_META_REGIONS,
  MX_META_LOAD = MX_META_values   /* the first load-only region: meta_load.def's first */
};

#define MX_META_ALIGN8(n) (((n) + 7u) & ~(uint64_t)7u)
/* Bytes of one region: every region starts 8-aligned, so the pool is the sum of these. An integer
 * constant expression for constant counts (the firmware sizes its pool array with it). */
#define MX_META_REGION_BYTES(count, elem_size) MX_META_ALIGN8((uint64_t)(count) * (elem_size))

/* Counts of method `name` as the loader computes them (for tools and tests that check the exporter). */
mx_error mx_program_method_counts(const mx_program *program, const char *name, mx_meta_counts *counts);

#endif
