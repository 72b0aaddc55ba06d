#ifndef MX_FUZZ_MEMORY_H
#define MX_FUZZ_MEMORY_H
/* The memory a fuzzed program gets: its bytes read-only where a kernel cannot write them unnoticed, and the
 * metadata pool and arenas it declares, refused above a limit before anything is allocated. */
#include <stddef.h>
#include <stdint.h>

#include "mx/runtime.h"
#include "mx_readonly.h"

/* Above this the target refuses a program before allocating (a file can declare any size). */
#define MX_FUZZ_MEMORY_LIMIT ((uint64_t)64 << 20)
/* Arena ids a program may declare; more is refused like an oversized arena. */
#define MX_FUZZ_MAX_ARENAS 64

/* The program's read-only pages (mx_readonly_make) with the slack after its last byte poisoned for
 * AddressSanitizer, so a write into the program faults and a read past its end is reported.
 * Returns 0, or -1 when the host is out of memory. */
int fuzz_program_copy_make(mx_readonly *c, const uint8_t *data, size_t size);
void fuzz_program_copy_free(mx_readonly *c);

typedef struct fuzz_method_memory {
  void *pool;
  mx_span arenas[MX_FUZZ_MAX_ARENAS];
  uint32_t arena_count;
} fuzz_method_memory;

/* The pool and arenas of a method, zeroed; MX_ERR_TOO_LARGE (nothing allocated) when their total is over
 * MX_FUZZ_MEMORY_LIMIT or the program declares more arenas than MX_FUZZ_MAX_ARENAS. */
mx_error fuzz_method_memory_make(fuzz_method_memory *m, const mx_program *program, const mx_method_meta *meta);
void fuzz_method_memory_free(fuzz_method_memory *m);

#endif
