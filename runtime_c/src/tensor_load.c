/* One Tensor table to an mx_tensor: type, shape and dim order validated; data placed in a planned arena
 * or pointed at constant data inside the program (used in place, never copied). */
#include "loader.h"
#include "schema_ids.h"

/* What an absent dim order means: contiguous. */
const uint8_t mx_identity_order[MX_MAX_DIM] = {0, 1, 2, 3, 4, 5, 6, 7};

static mx_error load_shape(mx_load_ctx *ctx, const mx_fb_table *t, mx_tensor *out) {
  mx_fb *fb = &ctx->fb;
  mx_fb_vec sizes, order;
  mx_error e = mx_fb_vector(fb, t, TENSOR_SIZES, 4, &sizes);
  if (e == MX_OK) e = mx_fb_vector(fb, t, TENSOR_DIM_ORDER, 1, &order);
  if (e != MX_OK) return e;
  if (sizes.len > MX_MAX_DIM) return MX_ERR_BAD_TENSOR;
  /* An absent dim order means contiguous; a present one must be a permutation of 0..dim-1. */
  if (order.len != 0 && order.len != sizes.len) return MX_ERR_BAD_TENSOR;
  /* read in place: the sizes vector (little-endian int32, as every supported target) must be 4-byte aligned */
  const uint8_t *at = fb->buf + sizes.pos;
  if (((uintptr_t)at & 3u) != 0) return MX_ERR_MISALIGNED;
  out->sizes = (const int32_t *)(const void *)at;
  out->dim_order = order.len ? fb->buf + order.pos : mx_identity_order;
  uint32_t numel = 1, nbytes;
  uint32_t seen = 0;
  out->dim = (uint8_t)sizes.len;
  for (uint32_t d = 0; d < sizes.len; d++) {
    int32_t s = mx_fb_vec_i32(fb, &sizes, d);
    uint8_t o = order.len ? mx_fb_vec_u8(fb, &order, d) : (uint8_t)d;
    if (s < 0 || o >= sizes.len || (seen & (1u << o)) != 0) return MX_ERR_BAD_TENSOR;
    seen |= 1u << o;
    if (__builtin_mul_overflow(numel, (uint32_t)s, &numel)) return MX_ERR_TOO_LARGE;
  }
  if (__builtin_mul_overflow(numel, mx_dtype_size(out->dtype), &nbytes)) return MX_ERR_TOO_LARGE;
  out->numel = numel;
  return MX_OK;
}

static mx_error check_aligned(const mx_tensor *t, const void *data) {
  uint32_t align = mx_dtype_size(t->dtype);
  return ((uintptr_t)data & (align - 1u)) == 0 ? MX_OK : MX_ERR_MISALIGNED;
}

/* memory_id indexes non_const_buffer_sizes, whose entry 0 is reserved; cfg->arenas uses the same index. */
static mx_error place_planned(mx_load_ctx *ctx, const mx_fb_table *alloc, mx_tensor *out) {
  mx_fb *fb = &ctx->fb;
  uint32_t id, lo, hi;
  mx_error e = mx_fb_u32(fb, alloc, ALLOC_MEMORY_ID, 0, &id);
  if (e == MX_OK) e = mx_fb_u32(fb, alloc, ALLOC_OFFSET_LOW, 0, &lo);
  if (e == MX_OK) e = mx_fb_u32(fb, alloc, ALLOC_OFFSET_HIGH, 0, &hi);
  if (e != MX_OK) return e;
  /* offset < 2^64 - 2^32 and nbytes < 2^32: their sum cannot wrap */
  uint64_t end = (((uint64_t)hi << 32) | lo) + mx_tensor_nbytes(out);
  if (id == 0 || id >= ctx->buffer_sizes.len) return MX_ERR_BAD_INDEX;
  int64_t declared = mx_fb_vec_i64(fb, &ctx->buffer_sizes, id);
  if (declared < 0 || end > (uint64_t)declared) return MX_ERR_ARENA_TOO_SMALL;
  if (id >= ctx->cfg->arena_count || ctx->cfg->arenas == NULL || ctx->cfg->arenas[id].ptr == NULL)
    return MX_ERR_ARENA_MISSING;
  const mx_span *arena = &ctx->cfg->arenas[id];
  if (end > arena->size) return MX_ERR_ARENA_TOO_SMALL;
  uint64_t offset = ((uint64_t)hi << 32) | lo;
  out->data = (uint8_t *)arena->ptr + offset;
  out->flags = MX_TENSOR_PLANNED;
  return check_aligned(out, out->data);
}

static mx_error check_location(mx_load_ctx *ctx, const mx_fb_table *t) {
  mx_fb_table extra;
  bool present;
  uint8_t location;
  uint32_t storage_offset;
  mx_error e = mx_fb_u32(&ctx->fb, t, TENSOR_STORAGE_OFFSET, 0, &storage_offset);
  if (e == MX_OK) e = mx_fb_table_field(&ctx->fb, t, TENSOR_EXTRA_INFO, &extra, &present);
  if (e != MX_OK) return e;
  if (storage_offset != 0) return MX_ERR_UNSUPPORTED;
  if (!present) return MX_OK;
  e = mx_fb_u8(&ctx->fb, &extra, EXTRA_INFO_LOCATION, 0, &location);
  if (e == MX_OK && location != 0) e = MX_ERR_UNSUPPORTED;   /* data in an external file */
  return e;
}

mx_error mx_load_tensor(mx_load_ctx *ctx, const mx_fb_table *t, mx_tensor *out) {
  mx_fb *fb = &ctx->fb;
  mx_fb_table alloc;
  bool planned;
  uint8_t dtype;
  uint32_t buffer_idx;
  *out = (mx_tensor){0};
  mx_error e = mx_fb_u8(fb, t, TENSOR_SCALAR_TYPE, 0, &dtype);
  if (e != MX_OK) return e;
  if (mx_dtype_size(dtype) == 0) return MX_ERR_BAD_TENSOR;
  out->dtype = dtype;
  e = load_shape(ctx, t, out);
  if (e == MX_OK) e = check_location(ctx, t);
  if (e == MX_OK) e = mx_fb_u32(fb, t, TENSOR_DATA_BUFFER_IDX, 0, &buffer_idx);
  if (e == MX_OK) e = mx_fb_table_field(fb, t, TENSOR_ALLOCATION_INFO, &alloc, &planned);
  if (e != MX_OK) return e;
  if (planned) {
    /* A planned tensor with initial data is a mutable buffer: its state lives in mutable segments. */
    if (buffer_idx != 0) return MX_ERR_UNSUPPORTED;
    return place_planned(ctx, &alloc, out);
  }
  if (buffer_idx == 0) {
    /* Index 0 is the reserved empty buffer: only an empty tensor may have neither data nor a plan. */
    return mx_tensor_nbytes(out) == 0 ? MX_OK : MX_ERR_UNPLANNED_TENSOR;
  }
  const uint8_t *data;
  e = mx_prog_constant(ctx->p, fb, buffer_idx, mx_tensor_nbytes(out), &data);
  if (e != MX_OK) return e;
  out->data = (void *)(uintptr_t)data;   /* never written: the loader lets only planned tensors be outs */
  return check_aligned(out, out->data);
}
