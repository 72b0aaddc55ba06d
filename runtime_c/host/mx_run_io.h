#ifndef MX_RUN_IO_H
#define MX_RUN_IO_H
/* Host-side helpers of mx_run: whole-file I/O and the DTYPE:SHAPE text forms. */
#include <stddef.h>
#include <stdint.h>

#include "mx/value.h"
#include "mx_readonly.h"

/* Reads a whole file into a 16-byte aligned buffer (free with free()). 0 on success, -1 on failure. */
int mx_run_read_file(const char *path, uint8_t **data, size_t *size);
int mx_run_write_file(const char *path, const void *data, size_t size);
/* Reads a program into read-only pages of its own (mx_readonly.h; free with mx_readonly_free). 0 on success,
 * -1 on failure. */
int mx_run_read_program(const char *path, mx_readonly *program);

typedef struct mx_run_shape {
  int dtype;
  uint32_t dim;
  int64_t sizes[MX_MAX_DIM];
} mx_run_shape;

/* "6:1x3x32x32" (dtype code, then sizes; "scalar" for 0-dim). Returns the rest after the second ':' via
 * *rest when parsing an --input spec; 0 on success, -1 on malformed text. */
int mx_run_parse_spec(const char *text, mx_run_shape *shape, const char **rest);
/* Writes "1x3x32x32" or "scalar" into buf. */
void mx_run_format_dims(char *buf, size_t cap, const int64_t *sizes, uint32_t dim);
void mx_run_tensor_shape(const mx_tensor *t, mx_run_shape *shape);

#endif
