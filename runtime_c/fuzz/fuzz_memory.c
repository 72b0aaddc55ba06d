#include "fuzz_memory.h"

#include <sanitizer/asan_interface.h>
#include <stdlib.h>
#include <string.h>

int fuzz_program_copy_make(mx_readonly *c, const uint8_t *data, size_t size) {
  if (mx_readonly_make(c, data, size) != 0) return -1;
  /* ASan does not watch mmap'ed memory: the bytes between the program's end and the page's would otherwise
   * be readable without a report, and a reader that overruns the file by a few bytes would pass. */
  ASAN_POISON_MEMORY_REGION(c->data + size, c->mapped - size);
  return 0;
}

void fuzz_program_copy_free(mx_readonly *c) {
  /* The shadow outlives the mapping: a later mmap at this address must not start out poisoned. */
  if (c->data != NULL) ASAN_UNPOISON_MEMORY_REGION(c->data, c->mapped);
  mx_readonly_free(c);
}

mx_error fuzz_method_memory_make(fuzz_method_memory *m, const mx_program *program, const mx_method_meta *meta) {
  uint64_t sizes[MX_FUZZ_MAX_ARENAS] = {0};
  memset(m, 0, sizeof *m);
  if (meta->arena_count > MX_FUZZ_MAX_ARENAS) return MX_ERR_TOO_LARGE;
  /* Every size is checked against the limit on its own first, so the sum cannot wrap. */
  uint64_t total = meta->meta_pool_bytes;
  if (total > MX_FUZZ_MEMORY_LIMIT) return MX_ERR_TOO_LARGE;
  for (uint32_t id = 1; id < meta->arena_count; id++) {
    mx_error e = mx_program_arena_size(program, meta, id, &sizes[id]);
    if (e != MX_OK) return e;
    if (sizes[id] > MX_FUZZ_MEMORY_LIMIT) return MX_ERR_TOO_LARGE;
    total += sizes[id];
    if (total > MX_FUZZ_MEMORY_LIMIT) return MX_ERR_TOO_LARGE;
  }
  /* Separate blocks, each exactly its declared size: ASan reports a write past any one of them. */
  m->pool = malloc(meta->meta_pool_bytes ? meta->meta_pool_bytes : 1);
  m->arena_count = meta->arena_count;
  for (uint32_t id = 1; id < meta->arena_count; id++) {
    m->arenas[id].ptr = calloc(1, sizes[id] ? (size_t)sizes[id] : 1);
    m->arenas[id].size = (size_t)sizes[id];
  }
  return MX_OK;
}

void fuzz_method_memory_free(fuzz_method_memory *m) {
  for (uint32_t id = 0; id < MX_FUZZ_MAX_ARENAS; id++) free(m->arenas[id].ptr);
  free(m->pool);
  memset(m, 0, sizeof *m);
}
