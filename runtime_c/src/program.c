/* Opening a program: identifier, extended header, segments and where constant data lives. */
#include <string.h>

#include "program_internal.h"
#include "schema_ids.h"

/* Four characters as the little-endian word that holds them in the file. */
#define MX_TAG4(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define MX_HEADER_AT 8u
#define MX_HEADER_MIN_LEN 24u   /* magic, length, program_size, segment_base_offset */

void mx_prog_reader(const mx_program *p, mx_fb *fb) { mx_fb_init(fb, p->data, p->fb_size); }

/* The optional "eh00" header at byte 8. A header may declare more bytes than the fields we know
 * (newer writers append fields); those extra bytes are skipped. */
static mx_error read_header(mx_program *p) {
  const uint8_t *d = p->data;
  p->fb_size = p->size;
  p->segment_base = 0;
  p->has_header = false;
  if (p->size < MX_HEADER_AT + 4 || mx_load_u32(d + MX_HEADER_AT) != MX_TAG4('e', 'h', '0', '0')) return MX_OK;
  if (p->size < MX_HEADER_AT + MX_HEADER_MIN_LEN) return MX_ERR_TRUNCATED;
  uint32_t length = mx_load_u32(d + MX_HEADER_AT + 4);
  uint64_t program_size = mx_load_u64(d + MX_HEADER_AT + 8);
  uint64_t segment_base = mx_load_u64(d + MX_HEADER_AT + 16);
  if (length < MX_HEADER_MIN_LEN) return MX_ERR_BAD_HEADER;
  if ((uint64_t)MX_HEADER_AT + length > p->size) return MX_ERR_TRUNCATED;
  if (program_size < (uint64_t)MX_HEADER_AT + length) return MX_ERR_BAD_HEADER;
  if (program_size > p->size) return MX_ERR_TRUNCATED;
  if (segment_base != 0 && segment_base < program_size) return MX_ERR_BAD_HEADER;
  p->fb_size = (uint32_t)program_size;
  /* clamped: a base past 4 GiB is past the file, and a segment with bytes there is refused (segment_at) */
  p->segment_base = segment_base > UINT32_MAX ? UINT32_MAX : (uint32_t)segment_base;
  p->has_header = true;
  return MX_OK;
}

/* Segment i as [start, start + size) of the file, checked to lie inside it (so both fit 32 bits). */
static mx_error segment_at(const mx_program *p, mx_fb *fb, const mx_fb_vec *segs, uint32_t i, uint32_t *start,
                           uint32_t *size) {
  mx_fb_table seg;
  uint64_t off, n;
  (void)mx_fb_vec_table(fb, segs, i, &seg);
  off = mx_fb_u64(fb, &seg, SEGMENT_OFFSET);
  n = mx_fb_u64(fb, &seg, SEGMENT_SIZE);
  if (fb->err != MX_OK) return fb->err;
  *start = 0;
  *size = 0;
  /* n == 0 holds no bytes: ExecuTorch writes one such segment, header-less, for a program without constants */
  if (n == 0) return MX_OK;
  if (!p->has_header || p->segment_base == 0 || p->segment_base > p->size) return MX_ERR_BAD_SEGMENT;
  const uint32_t room = p->size - p->segment_base;   /* each difference is taken only once it cannot wrap */
  if (off > room || n > room - off) return MX_ERR_BAD_SEGMENT;
  *start = p->segment_base + (uint32_t)off;
  *size = (uint32_t)n;
  return MX_OK;
}

mx_error mx_prog_segment(const mx_program *p, mx_fb *fb, uint32_t index, const uint8_t **data, uint32_t *size) {
  mx_fb_table root;
  mx_fb_vec segs;
  uint32_t start;
  (void)mx_fb_root(fb, &root);
  mx_error e = mx_fb_vector(fb, &root, PROGRAM_SEGMENTS, 4, &segs);
  if (e != MX_OK) return e;
  if (index >= segs.len) return MX_ERR_BAD_INDEX;
  e = segment_at(p, fb, &segs, index, &start, size);
  if (e != MX_OK) return e;
  *data = p->data + start;
  return MX_OK;
}

static mx_error read_constant_segment(mx_program *p, mx_fb *fb, const mx_fb_table *root, const mx_fb_vec *segs) {
  mx_fb_table cs;
  mx_fb_vec offsets;
  uint32_t index, start, size;
  mx_error e = mx_fb_table_field(fb, root, PROGRAM_CONSTANT_SEGMENT, &cs);
  if (e != MX_OK || cs.pos == 0) return e;
  index = mx_fb_u32(fb, &cs, SUBSEGMENT_INDEX);
  e = mx_fb_vector(fb, &cs, SUBSEGMENT_OFFSETS, 8, &offsets);
  if (e != MX_OK || offsets.len == 0) return e;
  if (index >= segs->len) return MX_ERR_BAD_INDEX;
  e = segment_at(p, fb, segs, index, &start, &size);
  if (e != MX_OK) return e;
  /* Each entry runs to the next one's offset (the last to the segment's end): a constant may use only its own
   * entry's bytes, which holds only while the offsets never go back. Each is then at most size: 32 bits. */
  uint64_t prev = 0;
  for (uint32_t i = 0; i < offsets.len; i++) {
    uint64_t off = mx_fb_vec_u64(fb, &offsets, i);
    if (off < prev || off > size) return MX_ERR_BAD_SEGMENT;
    prev = off;
  }
  p->const_segment = p->data + start;
  p->const_segment_size = size;
  p->const_offsets_pos = offsets.pos;
  p->const_offsets_len = offsets.len;
  return MX_OK;
}

mx_error mx_program_init(mx_program *p, const void *data, size_t size) {
  mx_fb fb;
  mx_fb_table root;
  mx_fb_vec plans, buffers, segs;
  memset(p, 0, sizeof *p);
  if (data == NULL || size < 8) return MX_ERR_TRUNCATED;
  if (size > UINT32_MAX) return MX_ERR_TOO_LARGE;
  p->data = (const uint8_t *)data;
  p->size = (uint32_t)size;
  if (mx_load_u32(p->data + 4) != MX_TAG4('E', 'T', '1', '2')) return MX_ERR_BAD_IDENTIFIER;
  mx_error e = read_header(p);
  if (e != MX_OK) return e;
  mx_prog_reader(p, &fb);
  (void)mx_fb_root(&fb, &root);
  (void)mx_fb_vector(&fb, &root, PROGRAM_EXECUTION_PLAN, 4, &plans);
  (void)mx_fb_vector(&fb, &root, PROGRAM_CONSTANT_BUFFER, 4, &buffers);
  e = mx_fb_vector(&fb, &root, PROGRAM_SEGMENTS, 4, &segs);   /* the reader's first error */
  for (uint32_t i = 0; e == MX_OK && i < segs.len; i++) {
    uint32_t start, seg_size;
    e = segment_at(p, &fb, &segs, i, &start, &seg_size);
  }
  if (e == MX_OK) e = read_constant_segment(p, &fb, &root, &segs);
  if (e != MX_OK) return e;
  p->root_pos = root.pos;
  p->plans_pos = plans.pos;
  p->plans_len = plans.len;
  p->const_buffers_pos = buffers.pos;
  p->const_buffers_len = buffers.len;
  return MX_OK;
}

uint32_t mx_program_method_count(const mx_program *p) { return p->plans_len; }

static mx_error plan_name(const mx_program *p, mx_fb *fb, uint32_t i, mx_fb_table *plan, const char **name) {
  mx_fb_vec plans = {p->plans_pos, p->plans_len};
  if (i >= plans.len) return MX_ERR_BAD_INDEX;
  (void)mx_fb_vec_table(fb, &plans, i, plan);
  return mx_fb_string(fb, plan, PLAN_NAME, name);
}

mx_error mx_program_method_name(const mx_program *p, uint32_t i, const char **name) {
  mx_fb fb;
  mx_fb_table plan;
  mx_prog_reader(p, &fb);
  return plan_name(p, &fb, i, &plan, name);
}

mx_error mx_prog_find_plan(const mx_program *p, mx_fb *fb, const char *name, mx_fb_table *plan, uint32_t *index) {
  for (uint32_t i = 0; i < p->plans_len; i++) {
    const char *n;
    mx_error e = plan_name(p, fb, i, plan, &n);
    if (e != MX_OK) return e;
    if (mx_str_eq(n, name)) {
      *index = i;
      return MX_OK;
    }
  }
  return MX_ERR_NO_METHOD;
}

mx_error mx_prog_constant(const mx_program *p, mx_fb *fb, uint32_t idx, uint32_t nbytes, const uint8_t **data) {
  if (p->const_segment != NULL) {
    mx_fb_vec offsets = {p->const_offsets_pos, p->const_offsets_len};
    if (idx >= offsets.len) return MX_ERR_BAD_INDEX;
    /* ordered and at most the segment's size (read_constant_segment): 32 bits, and end - off does not wrap */
    uint32_t off = (uint32_t)mx_fb_vec_u64(fb, &offsets, idx);
    uint32_t end = idx + 1u < offsets.len ? (uint32_t)mx_fb_vec_u64(fb, &offsets, idx + 1u) : p->const_segment_size;
    if (nbytes > end - off) return MX_ERR_CONSTANT_MISSING;
    *data = p->const_segment + off;
    return MX_OK;
  }
  mx_fb_vec buffers = {p->const_buffers_pos, p->const_buffers_len};
  mx_fb_table buf;
  mx_fb_vec storage;
  if (idx >= buffers.len) return MX_ERR_BAD_INDEX;
  (void)mx_fb_vec_table(fb, &buffers, idx, &buf);
  mx_error e = mx_fb_vector(fb, &buf, BUFFER_STORAGE, 1, &storage);
  if (e != MX_OK) return e;
  if (storage.len < nbytes) return MX_ERR_CONSTANT_MISSING;
  *data = fb->buf + storage.pos;
  return MX_OK;
}

mx_error mx_program_method_meta(const mx_program *p, const char *name, mx_method_meta *meta) {
  mx_fb fb;
  mx_fb_table plan;
  mx_fb_vec sizes = {0, 0};
  memset(meta, 0, sizeof *meta);
  meta->bad_value = -1;
  mx_prog_reader(p, &fb);
  mx_error e = mx_prog_find_plan(p, &fb, name, &plan, &meta->plan_index);
  if (e == MX_OK) e = mx_fb_vector(&fb, &plan, PLAN_NON_CONST_BUFFER_SIZES, 8, &sizes);
  if (e == MX_OK) e = mx_meta_pool_bytes(p, &fb, &plan, &meta->meta_pool_bytes, &meta->bad_value);
  meta->arena_count = sizes.len;
  return e;
}

mx_error mx_program_arena_size(const mx_program *p, const mx_method_meta *meta, uint32_t memory_id, uint64_t *size) {
  mx_fb fb;
  mx_fb_table plan;
  mx_fb_vec plans = {p->plans_pos, p->plans_len}, sizes;
  *size = 0;
  if (meta->plan_index >= plans.len) return MX_ERR_BAD_INDEX;
  mx_prog_reader(p, &fb);
  (void)mx_fb_vec_table(&fb, &plans, meta->plan_index, &plan);
  mx_error e = mx_fb_vector(&fb, &plan, PLAN_NON_CONST_BUFFER_SIZES, 8, &sizes);
  if (e != MX_OK) return e;
  if (memory_id >= sizes.len) return MX_ERR_BAD_INDEX;
  if (memory_id == 0) return MX_OK;
  int64_t s = mx_fb_vec_i64(&fb, &sizes, memory_id);
  if (s < 0) return MX_ERR_BAD_INDEX;
  *size = (uint64_t)s;
  return MX_OK;
}
