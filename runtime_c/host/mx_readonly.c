/* mmap's MAP_ANONYMOUS is not ISO C: ask the C library for its POSIX/BSD names. */
#define _DEFAULT_SOURCE

#include "mx_readonly.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int mx_readonly_make(mx_readonly *r, const uint8_t *data, size_t size) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  memset(r, 0, sizeof *r);
  const size_t mapped = (size / page + 1) * page;
  void *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return -1;
  if (size > 0) memcpy(p, data, size);
  if (mprotect(p, mapped, PROT_READ) != 0) {
    munmap(p, mapped);
    return -1;
  }
  r->data = p;
  r->size = size;
  r->mapped = mapped;
  return 0;
}

void mx_readonly_free(mx_readonly *r) {
  if (r->data != NULL) munmap(r->data, r->mapped);
  memset(r, 0, sizeof *r);
}
