#include "fb_reader.h"

#include <string.h>

/* Each visited object costs one unit. A well-formed file visits each of its objects a few times (the loader's
 * checked walk sizes the metadata pool and checks every value, and visits each call's arguments again to size the
 * call frame; building reads unchecked); objects are >= 4 bytes. */
#define MX_FB_BUDGET_PER_BYTE 2u
#define MX_FB_BUDGET_MIN 4096u

void mx_fb_init(mx_fb *fb, const uint8_t *buf, uint32_t len) {
  const uint32_t most = (UINT32_MAX - MX_FB_BUDGET_MIN) / MX_FB_BUDGET_PER_BYTE;
  fb->buf = buf;
  fb->len = len;
  fb->budget = len > most ? UINT32_MAX : len * MX_FB_BUDGET_PER_BYTE + MX_FB_BUDGET_MIN;
  fb->err = MX_OK;
}

/* The reader's error once a read met e: its first. */
static mx_error keep(mx_fb *fb, mx_error e) {
  if (fb->err == MX_OK) fb->err = e;
  return fb->err;
}

static mx_error spend(mx_fb *fb) {
  if (fb->budget == 0) return MX_ERR_BAD_OFFSET;
  fb->budget--;
  return MX_OK;
}

/* Follows the uoffset stored at `at` (at + 4 <= len: every caller has checked it). A zero offset would make an
 * object its own child: never produced by a builder, so it is rejected as a cycle. The target is 4-aligned with 4
 * bytes in the buffer, which is what open_table and open_vector need. In 32 bits: len - 4 - at cannot wrap. */
static mx_error follow(const mx_fb *fb, uint32_t at, uint32_t *target) {
  uint32_t off = mx_load_u32(fb->buf + at);
  if (off == 0 || ((at + off) & 3u) != 0) return MX_ERR_BAD_OFFSET;
  if (off > fb->len - 4u - at) return MX_ERR_TRUNCATED;
  *target = at + off;
  return MX_OK;
}

/* pos comes from follow: aligned, with its 4 bytes inside the buffer. The vtable at pos - soff has its 4 bytes
 * inside too, checked in 32 bits without wrapping: soff >= 0 needs soff <= pos, soff < 0 -soff <= len - 4 - pos. */
static mx_error open_table(mx_fb *fb, uint32_t pos, mx_fb_table *out) {
  mx_error e = spend(fb);
  if (e != MX_OK) return e;
  int32_t soff = (int32_t)mx_load_u32(fb->buf + pos);
  uint32_t room = fb->len - 4u - pos;
  if (soff >= 0 ? (uint32_t)soff > pos : 0u - (uint32_t)soff > room) return MX_ERR_BAD_VTABLE;
  uint32_t vt = pos - (uint32_t)soff;
  if ((vt & 1u) != 0) return MX_ERR_BAD_VTABLE;
  uint16_t vt_size = mx_load_u16(fb->buf + vt);
  uint16_t tbl_size = mx_load_u16(fb->buf + vt + 2);
  if (vt_size < 4 || (vt_size & 1u) != 0 || vt_size > fb->len - vt) return MX_ERR_BAD_VTABLE;
  if (tbl_size < 4 || tbl_size > room + 4u) return MX_ERR_BAD_VTABLE;
  out->pos = pos;
  out->vt = (uint32_t)vt;
  out->vt_size = vt_size;
  out->tbl_size = tbl_size;
  return MX_OK;
}

mx_error mx_fb_root(mx_fb *fb, mx_fb_table *out) {
  uint32_t pos;
  *out = (mx_fb_table){0};
  if (fb->len < 8) return keep(fb, MX_ERR_TRUNCATED);
  mx_error e = follow(fb, 0, &pos);
  if (e == MX_OK) e = open_table(fb, pos, out);
  return keep(fb, e);
}

/* Position of field `id` holding `size` bytes, or 0 when absent. The field must lie inside the buffer, not
 * inside the vtable's declared table size: flatbuffers' Python builder 25.2.10 (ExecuTorch's serializer here)
 * shares vtables between tables of different sizes, and flatbuffers' own verifier accepts that too. */
static mx_error field_pos(const mx_fb *fb, const mx_fb_table *t, uint16_t id, uint32_t size, uint32_t *pos) {
  uint32_t slot = 4u + 2u * (uint32_t)id;
  *pos = 0;
  if (slot + 2 > t->vt_size) return MX_OK;
  uint16_t fo = mx_load_u16(fb->buf + t->vt + slot);
  if (fo == 0) return MX_OK;
  /* t->pos + 4 <= len (open_table); fo and size are below 2^16: the sum cannot wrap */
  if (fo < 4 || t->pos + fo + size > fb->len) return MX_ERR_BAD_VTABLE;
  *pos = t->pos + fo;
  return MX_OK;
}

/* One body for every width: the value's `size` bytes (little-endian, as every supported target), or 0. */
static uint64_t scalar(mx_fb *fb, const mx_fb_table *t, uint16_t id, uint32_t size) {
  uint32_t p;
  uint64_t x = 0;
  (void)keep(fb, field_pos(fb, t, id, size, &p));   /* p is 0 when that failed */
  if (p) memcpy(&x, fb->buf + p, size);
  return x;
}

uint8_t mx_fb_u8(mx_fb *fb, const mx_fb_table *t, uint16_t id) { return (uint8_t)scalar(fb, t, id, 1); }
uint32_t mx_fb_u32(mx_fb *fb, const mx_fb_table *t, uint16_t id) { return (uint32_t)scalar(fb, t, id, 4); }
uint64_t mx_fb_u64(mx_fb *fb, const mx_fb_table *t, uint16_t id) { return scalar(fb, t, id, 8); }

static mx_error offset_field(mx_fb *fb, const mx_fb_table *t, uint16_t id, uint32_t *target) {
  uint32_t p;
  mx_error e = field_pos(fb, t, id, 4, &p);
  *target = 0;
  if (e != MX_OK || p == 0) return e;
  return follow(fb, p, target);
}

mx_error mx_fb_table_field(mx_fb *fb, const mx_fb_table *t, uint16_t id, mx_fb_table *out) {
  uint32_t target;
  mx_error e = offset_field(fb, t, id, &target);
  *out = (mx_fb_table){0};
  if (e == MX_OK && target != 0) e = open_table(fb, target, out);
  return keep(fb, e);
}

/* A vector at `pos` (from follow: pos + 4 <= len): its count, then count * elem_size bytes, all inside the
 * buffer. The product is 64-bit (one umull); the rest is compared against what is left, so nothing wraps. */
static mx_error open_vector(mx_fb *fb, uint32_t pos, uint32_t elem_size, mx_fb_vec *out) {
  mx_error e = spend(fb);
  if (e != MX_OK) return e;
  uint32_t count = mx_load_u32(fb->buf + pos);
  uint32_t left = fb->len - 4u - pos;
  if ((uint64_t)count * elem_size > left) return MX_ERR_TRUNCATED;
  out->pos = pos + 4;
  out->len = count;
  return MX_OK;
}

mx_error mx_fb_vector(mx_fb *fb, const mx_fb_table *t, uint16_t id, uint32_t elem_size, mx_fb_vec *out) {
  uint32_t target;
  mx_error e = offset_field(fb, t, id, &target);
  out->pos = 0;
  out->len = 0;
  if (e == MX_OK && target != 0) e = open_vector(fb, target, elem_size, out);
  return keep(fb, e);
}

mx_error mx_fb_string(mx_fb *fb, const mx_fb_table *t, uint16_t id, const char **s) {
  mx_fb_vec v;
  mx_error e = mx_fb_vector(fb, t, id, 1, &v);
  *s = "";
  if (e != MX_OK || v.pos == 0) return e;   /* absent: "" */
  /* its terminator inside the buffer too (v.pos + v.len <= len: mx_fb_vector) */
  if (v.pos + v.len == fb->len) return keep(fb, MX_ERR_TRUNCATED);
  if (fb->buf[v.pos + v.len] != 0) return keep(fb, MX_ERR_BAD_OFFSET);
  *s = (const char *)(fb->buf + v.pos);
  return MX_OK;
}

bool mx_str_eq(const char *a, const char *b) {
  while (*a != '\0' && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

mx_error mx_fb_vec_union(mx_fb *fb, const mx_fb_vec *v, uint32_t i, uint8_t max_type, uint8_t *type,
                         mx_fb_table *value) {
  mx_fb_table t;
  (void)mx_fb_vec_table(fb, v, i, &t);
  *type = mx_fb_u8(fb, &t, 0);
  if (*type > max_type) (void)keep(fb, MX_ERR_BAD_UNION);
  *value = (mx_fb_table){0};
  if (fb->err == MX_OK) (void)mx_fb_table_field(fb, &t, 1, value);
  if (*type != 0 && value->pos == 0) (void)keep(fb, MX_ERR_BAD_UNION);
  if (fb->err != MX_OK) *type = 0;   /* what a failed read leaves */
  return fb->err;
}

mx_error mx_fb_vec_table(mx_fb *fb, const mx_fb_vec *v, uint32_t i, mx_fb_table *out) {
  uint32_t target;
  mx_error e = follow(fb, v->pos + 4u * i, &target);
  *out = (mx_fb_table){0};
  if (e == MX_OK) e = open_table(fb, target, out);
  return keep(fb, e);
}
