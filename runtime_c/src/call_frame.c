/* Building values from the program: every value once while the method loads (value_load.c), then a call's
 * arguments just before the call, into the method's call frame. RAM holds one call's worth, the largest call's
 * (mx/meta_pool.def: frame_*), instead of every value of the method.
 *
 * mx_count_meta checked every offset, vtable, vector, tag and tensor these reads follow, and the program does not
 * change, so they go straight to the bytes (little-endian, as sizes read in place already assume): ~4x fewer
 * instructions than the checked reader, which matters as this runs before every call. Loading and calls build
 * alike; what mx_count_meta leaves is checked here on loading: the values lists name, and what depends on the config
 * (the arenas). A call reads int lists without the item checks (list(): per-channel lists of hundreds, each call). */
#include <string.h>

#include "loader.h"
#include "schema_ids.h"

static uint16_t u16(const uint8_t *b, uint32_t pos) { return mx_load_u16(b + pos); }
static uint32_t u32(const uint8_t *b, uint32_t pos) { return mx_load_u32(b + pos); }
static uint64_t u64(const uint8_t *b, uint32_t pos) { return mx_load_u64(b + pos); }

/* Position of field `id` of the table at `table`, 0 when absent. */
static uint32_t field(const uint8_t *b, uint32_t table, uint32_t id) {
  const uint32_t vt = table - u32(b, table);   /* the table's soffset, subtracted modulo 2^32 */
  const uint32_t slot = 4u + 2u * id;
  if (slot + 2u > u16(b, vt)) return 0;
  const uint16_t at = u16(b, vt + slot);
  return at ? table + at : 0u;
}

/* The table or vector an offset field points at, 0 when absent. */
static uint32_t child(const uint8_t *b, uint32_t table, uint32_t id) {
  const uint32_t at = field(b, table, id);
  return at ? at + u32(b, at) : 0u;
}

static uint32_t u32_field(const uint8_t *b, uint32_t table, uint32_t id) {
  const uint32_t at = field(b, table, id);
  return at ? u32(b, at) : 0u;
}

uint32_t mx_fb_value(const uint8_t *b, uint32_t values_pos, uint32_t i, uint8_t *tag) {
  const uint32_t slot = values_pos + 4u * i, ev = slot + u32(b, slot);
  const uint32_t at = field(b, ev, EVALUE_VAL_TYPE);
  *tag = at ? b[at] : (uint8_t)MX_TAG_NONE;
  return child(b, ev, EVALUE_VAL_TYPE + 1u);
}

static uint32_t value_table(const mx_builder *r, uint32_t i, uint8_t *tag) {
  return mx_fb_value(r->fb.buf, r->m->frame.values_pos, i, tag);
}

/* n elements of region `region` (MX_BUILD_*): its cursor advances, NULL when the region is short (never, for a
 * program that mx_count_meta sized the regions of). */
static void *take(mx_builder *r, uint32_t region, uint32_t n) {
  static const uint8_t size[MX_BUILD_REGIONS] = {sizeof(mx_tensor), sizeof(int64_t), sizeof(double),
                                                 sizeof(mx_tensor *)};
  if (n > r->left[region]) return NULL;
  r->left[region] -= n;
  uint8_t *start = r->cur[region];
  r->cur[region] += (size_t)n * size[region];
  return start;
}

/* A planned tensor's arena, which loading checks holds it: present, large enough, and its data aligned. */
static mx_error place(const mx_builder *r, uint32_t alloc, mx_tensor *x) {
  const uint8_t *b = r->fb.buf;
  const mx_span *arena = &r->m->arenas[u32_field(b, alloc, ALLOC_MEMORY_ID)];
  const uint64_t offset =
      ((uint64_t)u32_field(b, alloc, ALLOC_OFFSET_HIGH) << 32) | u32_field(b, alloc, ALLOC_OFFSET_LOW);
  x->flags = MX_TENSOR_PLANNED;
  if (r->load) {
    if (arena->ptr == NULL) return MX_ERR_ARENA_MISSING;
    if (offset > arena->size || mx_tensor_nbytes(x) > arena->size - offset) return MX_ERR_ARENA_TOO_SMALL;
  }
  x->data = (uint8_t *)arena->ptr + offset;
  return r->load && ((uintptr_t)x->data & (mx_dtype_size(x->dtype) - 1u)) != 0 ? MX_ERR_MISALIGNED : MX_OK;
}

static mx_error tensor(mx_builder *r, uint32_t t, mx_tensor **out) {
  const uint8_t *b = r->fb.buf;
  mx_tensor *x = take(r, MX_BUILD_TENSORS, 1);
  if (x == NULL) return MX_ERR_META_POOL_FULL;
  *x = (mx_tensor){0};
  const uint32_t type = field(b, t, TENSOR_SCALAR_TYPE), sizes = child(b, t, TENSOR_SIZES);
  const uint32_t order = child(b, t, TENSOR_DIM_ORDER), alloc = child(b, t, TENSOR_ALLOCATION_INFO);
  x->dtype = type ? b[type] : 0u;
  x->dim = sizes ? (uint8_t)u32(b, sizes) : 0u;
  x->sizes = (const int32_t *)(const void *)(b + (sizes ? sizes + 4u : 0u));
  x->dim_order = order && u32(b, order) ? b + order + 4u : mx_identity_order;
  x->numel = 1;
  for (uint32_t d = 0; d < x->dim; d++) x->numel *= (uint32_t)x->sizes[d];
  *out = x;
  if (alloc) return place(r, alloc, x);
  const uint32_t buffer = u32_field(b, t, TENSOR_DATA_BUFFER_IDX);
  if (buffer == 0) return MX_OK;   /* empty */
  const uint8_t *data;
  mx_error e = mx_prog_constant(r->m->program, &r->fb, buffer, mx_tensor_nbytes(x), &data);
  x->data = (void *)(uintptr_t)data;
  return e;
}

/* A list's item names value idx, checked to be in range and of the list's kind (a program whose lists are not so is
 * refused at load; a call meets only lists that loaded). *v: its value table, 0 for an optional list's None. */
static mx_error list_item(const mx_builder *r, uint64_t idx, uint8_t want, bool optional, uint32_t *v) {
  uint8_t tag = MX_TAG_NONE;
  *v = 0;
  if (optional && idx == UINT64_MAX) return MX_OK;   /* -1 */
  if (idx >= r->m->value_count) return MX_ERR_BAD_INDEX;   /* a negative index reads as 2^63 or more */
  const uint32_t at = value_table(r, (uint32_t)idx, &tag);
  if (tag == want) *v = at;
  return tag == want || (optional && (tag == MX_TAG_NULL || tag == MX_TAG_NONE)) ? MX_OK : MX_ERR_BAD_VALUE_TYPE;
}

/* A list's items (at `items`, n of them): an IntList's name Int values, whose ints it holds; a tensor list's name
 * tensors, NULL for an optional list's None. Loading names the tensors it built (a tensor is one object for the
 * checks that compare them), a call builds them anew. */
static mx_error list(mx_builder *r, uint8_t tag, uint32_t items, uint32_t n, mx_value *out) {
  const uint8_t *b = r->fb.buf;
  const bool ints = tag == MX_TAG_INT_LIST, optional = tag == MX_TAG_OPT_TENSOR_LIST;
  void *dst = take(r, ints ? MX_BUILD_INTS : MX_BUILD_REFS, n);
  int64_t *ints_at = dst;
  mx_tensor **refs = dst;
  if (dst == NULL) return MX_ERR_META_POOL_FULL;
  if (ints && !r->load) {   /* loading checked every item; a call, each inference, reads lists of hundreds */
    for (uint32_t k = 0; k < n; k++) {
      uint8_t kind;
      const uint32_t f = field(b, value_table(r, (uint32_t)u64(b, items + 4u + 8u * k), &kind), SCALAR_VALUE);
      ints_at[k] = f ? (int64_t)u64(b, f) : 0;
    }
    out->u.ints = (mx_int_list){ints_at, n};
    return MX_OK;
  }
  for (uint32_t k = 0; k < n; k++) {
    /* an int64 in an IntList, an int32 in a tensor list */
    const uint32_t at = items + 4u + (ints ? 8u * k : 4u * k);
    const uint64_t idx = ints ? u64(b, at) : (uint64_t)(int64_t)(int32_t)u32(b, at);
    uint32_t v;
    mx_error e = list_item(r, idx, ints ? MX_TAG_INT : MX_TAG_TENSOR, optional, &v);
    if (e == MX_OK && ints) {
      const uint32_t f = field(b, v, SCALAR_VALUE);
      ints_at[k] = f ? (int64_t)u64(b, f) : 0;
      continue;
    }
    refs[k] = NULL;
    if (e == MX_OK && v != 0 && r->load) refs[k] = r->m->values[idx].u.t;
    if (e == MX_OK && v != 0 && !r->load) e = tensor(r, v, &refs[k]);
    if (e != MX_OK) return e;
  }
  if (ints) {
    out->u.ints = (mx_int_list){ints_at, n};
  } else {
    out->u.tensors.items = refs;
    out->u.tensors.len = n;
  }
  return MX_OK;
}

mx_error mx_build_value(mx_builder *r, uint32_t id, mx_value *out) {
  const uint8_t *b = r->fb.buf;
  uint8_t tag;
  const uint32_t v = value_table(r, id, &tag);
  const uint32_t at = v && tag != MX_TAG_TENSOR ? field(b, v, SCALAR_VALUE) : 0u;
  /* a list's or a string's vector (an Int's, a Double's or a Bool's field holds the value itself) */
  const bool vector = tag == MX_TAG_STRING || tag >= MX_TAG_INT_LIST;
  const uint32_t items = vector && at ? at + u32(b, at) : 0u;
  const uint32_t n = items ? u32(b, items) : 0u;
  double *doubles;
  *out = (mx_value){.tag = tag};
  switch (tag) {
    case MX_TAG_INT:
    case MX_TAG_DOUBLE:
      if (at) __builtin_memcpy(out->u.bits, b + at, sizeof out->u.bits); /* inline under -ffreestanding */
      return MX_OK;
    case MX_TAG_BOOL: out->u.b = at && b[at] != 0; return MX_OK;
    case MX_TAG_STRING:
      out->u.str.chars = items ? (const char *)(b + items + 4u) : "";
      out->u.str.len = n;
      return MX_OK;
    case MX_TAG_TENSOR: return tensor(r, v, &out->u.t);
    case MX_TAG_DOUBLE_LIST:
      doubles = take(r, MX_BUILD_DOUBLES, n);
      if (doubles == NULL) return MX_ERR_META_POOL_FULL;
      if (n) memcpy(doubles, b + items + 4u, (size_t)n * sizeof *doubles);   /* copied: 8-byte alignment unknown */
      out->u.doubles.items = doubles;
      out->u.doubles.len = n;
      return MX_OK;
    case MX_TAG_BOOL_LIST:
      out->u.bools.items = items ? b + items + 4u : b;
      out->u.bools.len = n;
      return MX_OK;
    case MX_TAG_INT_LIST:
    case MX_TAG_TENSOR_LIST:
    case MX_TAG_OPT_TENSOR_LIST: return list(r, tag, items, n, out);
    default: return MX_OK;   /* None, Null */
  }
}

/* One call's building: in mx_frame_build's frame, which is gone before the kernel runs (a builder in the executor's
 * frame would sit under every kernel's stack). */
mx_error mx_frame_build(const mx_method *m, const mx_instr *ins, mx_value ***argv) {
  const mx_frame *f = &m->frame;
  if (ins->nargs > f->cap_args) return MX_ERR_META_POOL_FULL;
  mx_builder rd = {.m = m,
                   .cur = {(uint8_t *)f->tensors, (uint8_t *)f->ints, (uint8_t *)f->doubles, (uint8_t *)f->refs},
                   .left = {f->cap_tensors, f->cap_ints, f->cap_doubles, f->cap_refs}};
  mx_prog_reader(m->program, &rd.fb);
  const uint16_t *ids = &m->arg_ids[ins->first_arg];
  for (uint32_t k = 0; k < ins->nargs; k++) {
    uint32_t same = 0;
    while (same < k && ids[same] != ids[k]) same++;
    if (same < k) {   /* one value named twice (an out and the return repeating it) stays one value */
      f->argv[k] = f->argv[same];
      continue;
    }
    mx_error e = mx_build_value(&rd, ids[k], &f->values[k]);
    if (e != MX_OK) return e;
    f->argv[k] = &f->values[k];
  }
  *argv = f->argv;
  return MX_OK;
}
