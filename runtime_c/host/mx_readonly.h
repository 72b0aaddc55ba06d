#ifndef MX_READONLY_H
#define MX_READONLY_H
/* A program's bytes in pages of their own, then made read-only: a write into the program (a constant used as an
 * out) faults on the host as it would in a device's flash, instead of silently changing the model. Shared by
 * mx_run and the fuzz target. */
#include <stddef.h>
#include <stdint.h>

typedef struct mx_readonly {
  uint8_t *data; /* page-aligned (so 16-aligned, as constants used in place want) */
  size_t size;
  size_t mapped; /* whole pages, at least one: an empty program still has an address */
} mx_readonly;

/* 0, or -1 when the host is out of memory (nothing is left mapped). */
int mx_readonly_make(mx_readonly *r, const uint8_t *data, size_t size);
void mx_readonly_free(mx_readonly *r);

#endif
