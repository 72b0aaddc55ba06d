#include "mx_run_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mx_run_read_file(const char *path, uint8_t **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return -1;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
  if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return -1;
  }
  /* Constants are used in place, so the program buffer gets the alignment the .pte format promises. */
  size_t cap = ((size_t)n + 16u) & ~(size_t)15u;
  uint8_t *buf = aligned_alloc(16, cap);
  if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    fclose(f);
    return -1;
  }
  fclose(f);
  *data = buf;
  *size = (size_t)n;
  return 0;
}

int mx_run_read_program(const char *path, mx_readonly *program) {
  uint8_t *file;
  size_t n;
  if (mx_run_read_file(path, &file, &n) != 0) return -1;
  int rc = mx_readonly_make(program, file, n);
  free(file);
  return rc;
}

int mx_run_write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return -1;
  int ok = size == 0 || fwrite(data, 1, size, f) == size;
  return (fclose(f) == 0 && ok) ? 0 : -1;
}

static int parse_int(const char *s, const char *end, int64_t max, int64_t *out) {
  int64_t v = 0;
  if (s == end) return -1;
  for (const char *p = s; p < end; p++) {
    if (*p < '0' || *p > '9') return -1;
    v = v * 10 + (*p - '0');
    if (v > max) return -1;
  }
  *out = v;
  return 0;
}

int mx_run_parse_spec(const char *text, mx_run_shape *shape, const char **rest) {
  const char *c1 = strchr(text, ':');
  int64_t v;
  if (c1 == NULL || parse_int(text, c1, 255, &v) != 0) return -1;
  shape->dtype = (int)v;
  const char *dims = c1 + 1;
  const char *end = strchr(dims, ':');
  if (end == NULL) end = dims + strlen(dims);
  if (rest != NULL) *rest = *end == ':' ? end + 1 : NULL;
  shape->dim = 0;
  if (end == dims || ((size_t)(end - dims) == 6 && strncmp(dims, "scalar", 6) == 0)) return 0;
  const char *p = dims;
  while (p < end) {
    const char *x = memchr(p, 'x', (size_t)(end - p));
    const char *stop = x ? x : end;
    if (shape->dim >= MX_MAX_DIM || parse_int(p, stop, INT32_MAX, &v) != 0) return -1;
    shape->sizes[shape->dim++] = v;
    p = x ? x + 1 : end;
    if (x && p == end) return -1;
  }
  return 0;
}

void mx_run_format_dims(char *buf, size_t cap, const int64_t *sizes, uint32_t dim) {
  size_t used = 0;
  if (dim == 0) {
    snprintf(buf, cap, "scalar");
    return;
  }
  buf[0] = '\0';
  for (uint32_t d = 0; d < dim && used < cap; d++) {
    int n = snprintf(buf + used, cap - used, d ? "x%lld" : "%lld", (long long)sizes[d]);
    if (n < 0) break;
    used += (size_t)n;
  }
}

void mx_run_tensor_shape(const mx_tensor *t, mx_run_shape *shape) {
  shape->dtype = t->dtype;
  shape->dim = t->dim;
  for (uint32_t d = 0; d < t->dim; d++) shape->sizes[d] = t->sizes[d];
}
