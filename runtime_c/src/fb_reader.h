#ifndef MX_FB_READER_H
#define MX_FB_READER_H
/* A bounds-checked flatbuffer reader. The file is untrusted: every offset, vtable, vector and string is
 * checked against the buffer before use, reads go through memcpy (the buffer may sit at any address),
 * and every object visited costs one unit of a budget linear in the buffer size, so offsets that make
 * many objects share one big child cannot turn a small file into unbounded work.
 *
 * A reader keeps its first error: every call returns it (MX_OK until a read fails), and a failed read leaves zeros
 * (absent fields, empty vectors, tag 0), so a caller may read on and check once before it decides anything. */
#include <stdbool.h>
#include <stdint.h>

#include "mx/errors.h"

typedef struct mx_fb {
  const uint8_t *buf;
  uint32_t len;
  uint32_t budget;   /* objects left to visit */
  mx_error err;      /* the first failed read's error */
} mx_fb;

typedef struct mx_fb_table {
  uint32_t pos;      /* table start */
  uint32_t vt;       /* vtable start */
  uint16_t vt_size;  /* vtable size in bytes (>= 4) */
  uint16_t tbl_size; /* inline table size in bytes, from the vtable */
} mx_fb_table;

typedef struct mx_fb_vec {
  uint32_t pos;      /* first element */
  uint32_t len;      /* element count */
} mx_fb_vec;

void mx_fb_init(mx_fb *fb, const uint8_t *buf, uint32_t len);

mx_error mx_fb_root(mx_fb *fb, mx_fb_table *out);

/* Scalars: an absent field (or a failed read) reads as 0, every default the schema's fields we read have. */
uint8_t mx_fb_u8(mx_fb *fb, const mx_fb_table *t, uint16_t id);
uint32_t mx_fb_u32(mx_fb *fb, const mx_fb_table *t, uint16_t id);
uint64_t mx_fb_u64(mx_fb *fb, const mx_fb_table *t, uint16_t id);

/* Offset fields: an absent table reads as all zeros (pos 0, no fields: each reads as its default), an absent
 * vector as empty. */
mx_error mx_fb_table_field(mx_fb *fb, const mx_fb_table *t, uint16_t id, mx_fb_table *out);
mx_error mx_fb_vector(mx_fb *fb, const mx_fb_table *t, uint16_t id, uint32_t elem_size, mx_fb_vec *out);
/* A string is returned NUL-terminated in place (the terminator is checked to lie inside the buffer); absent: "". */
mx_error mx_fb_string(mx_fb *fb, const mx_fb_table *t, uint16_t id, const char **s);
/* Whether two NUL-terminated strings are equal: names of methods, operators, backends. Ours rather than libc's
 * strcmp, whose word-at-a-time Thumb-2 version is 478 bytes of flash for comparing a handful of short names. */
bool mx_str_eq(const char *a, const char *b);
/* The union that element i of a vector of tables holds as its first field (an EValue's value, an Instruction's
 * args): type byte in field 0, value table in field 1. A non-zero type needs a value. */
mx_error mx_fb_vec_union(mx_fb *fb, const mx_fb_vec *v, uint32_t i, uint8_t max_type, uint8_t *type,
                         mx_fb_table *value);

/* Element i of a vector of tables. */
mx_error mx_fb_vec_table(mx_fb *fb, const mx_fb_vec *v, uint32_t i, mx_fb_table *out);

/* Raw little-endian loads from any buffer, at any alignment (used for the extended header as well): every supported
 * target is little-endian (sizes are read in place too). __builtin_memcpy: firmware builds are -ffreestanding,
 * where a plain memcpy stays a library call; this is one load instruction on Cortex-M and hosts. */
static inline uint16_t mx_load_u16(const uint8_t *p) {
  uint16_t x;
  __builtin_memcpy(&x, p, sizeof x);
  return x;
}

static inline uint32_t mx_load_u32(const uint8_t *p) {
  uint32_t x;
  __builtin_memcpy(&x, p, sizeof x);
  return x;
}

static inline uint64_t mx_load_u64(const uint8_t *p) {
  uint64_t x;
  __builtin_memcpy(&x, p, sizeof x);
  return x;
}

/* Elements of a checked vector: callers index below vec.len, so these cannot fail. Inline: one load each. */
static inline uint8_t mx_fb_vec_u8(const mx_fb *fb, const mx_fb_vec *v, uint32_t i) { return fb->buf[v->pos + i]; }
static inline int32_t mx_fb_vec_i32(const mx_fb *fb, const mx_fb_vec *v, uint32_t i) {
  return (int32_t)mx_load_u32(fb->buf + v->pos + 4u * i);
}
static inline uint64_t mx_fb_vec_u64(const mx_fb *fb, const mx_fb_vec *v, uint32_t i) {
  return mx_load_u64(fb->buf + v->pos + 8u * i);
}
static inline int64_t mx_fb_vec_i64(const mx_fb *fb, const mx_fb_vec *v, uint32_t i) {
  return (int64_t)mx_fb_vec_u64(fb, v, i);
}

#endif
