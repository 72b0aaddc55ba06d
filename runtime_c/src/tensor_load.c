/* That one Tensor table makes a valid tensor: type, shape and dim order; data placed in a planned arena within its
 * declared size, or constant data inside the program (used in place, never copied). call_frame.c builds it. */
#include "loader.h"
#include "schema_ids.h"

/* What an absent dim order means: contiguous. */
const uint8_t mx_identity_order[MX_MAX_DIM] = {0, 1, 2, 3, 4, 5, 6, 7};

/* The tensor's bytes into *nbytes (elem_size each), checked to fit 32 bits. */
static mx_error check_shape(mx_fb *fb, const mx_fb_table *t, uint32_t elem_size, uint32_t *nbytes) {
  mx_fb_vec sizes, order;
  (void)mx_fb_vector(fb, t, TENSOR_SIZES, 4, &sizes);
  mx_error e = mx_fb_vector(fb, t, TENSOR_DIM_ORDER, 1, &order);   /* the reader's first error */
  if (e != MX_OK) return e;
  if (sizes.len > MX_MAX_DIM) return MX_ERR_BAD_TENSOR;
  /* An absent dim order means contiguous; a present one must be a permutation of 0..dim-1. */
  if (order.len != 0 && order.len != sizes.len) return MX_ERR_BAD_TENSOR;
  /* read in place: the sizes vector (little-endian int32, as every supported target) must be 4-byte aligned */
  if (((uintptr_t)(fb->buf + sizes.pos) & 3u) != 0) return MX_ERR_MISALIGNED;
  uint32_t numel = 1;
  uint32_t seen = 0;
  for (uint32_t d = 0; d < sizes.len; d++) {
    int32_t s = mx_fb_vec_i32(fb, &sizes, d);
    uint8_t o = order.len ? mx_fb_vec_u8(fb, &order, d) : (uint8_t)d;
    if (s < 0 || o >= sizes.len || (seen & (1u << o)) != 0) return MX_ERR_BAD_TENSOR;
    seen |= 1u << o;
    if (__builtin_mul_overflow(numel, (uint32_t)s, &numel)) return MX_ERR_TOO_LARGE;
  }
  return __builtin_mul_overflow(numel, elem_size, nbytes) ? MX_ERR_TOO_LARGE : MX_OK;
}

/* memory_id indexes non_const_buffer_sizes, whose entry 0 is reserved; the config's arenas use the same index. */
static mx_error check_planned(mx_fb *fb, const mx_fb_vec *buffer_sizes, const mx_fb_table *alloc, uint32_t nbytes) {
  const uint32_t id = mx_fb_u32(fb, alloc, ALLOC_MEMORY_ID), lo = mx_fb_u32(fb, alloc, ALLOC_OFFSET_LOW);
  const uint32_t hi = mx_fb_u32(fb, alloc, ALLOC_OFFSET_HIGH);
  if (fb->err != MX_OK) return fb->err;
  if (id == 0 || id >= buffer_sizes->len) return MX_ERR_BAD_INDEX;
  const int64_t declared = mx_fb_vec_i64(fb, buffer_sizes, id);
  const uint64_t offset = ((uint64_t)hi << 32) | lo;
  /* compared without adding: an offset near 2^64 would wrap offset + nbytes */
  if (declared < 0 || offset > (uint64_t)declared || nbytes > (uint64_t)declared - offset) {
    return MX_ERR_ARENA_TOO_SMALL;
  }
  return MX_OK;
}

static mx_error check_location(mx_fb *fb, const mx_fb_table *t) {
  mx_fb_table extra;
  const uint32_t storage_offset = mx_fb_u32(fb, t, TENSOR_STORAGE_OFFSET);
  mx_error e = mx_fb_table_field(fb, t, TENSOR_EXTRA_INFO, &extra);
  if (e != MX_OK) return e;
  if (storage_offset != 0) return MX_ERR_UNSUPPORTED;
  const uint8_t location = mx_fb_u8(fb, &extra, EXTRA_INFO_LOCATION);   /* absent: all defaults */
  if (fb->err != MX_OK) return fb->err;
  return location != 0 ? MX_ERR_UNSUPPORTED : MX_OK;   /* data in an external file */
}

mx_error mx_check_tensor_table(const mx_program *p, mx_fb *fb, const mx_fb_vec *buffer_sizes, const mx_fb_table *t) {
  mx_fb_table alloc;
  uint32_t nbytes;
  const uint8_t dtype = mx_fb_u8(fb, t, TENSOR_SCALAR_TYPE);
  if (fb->err != MX_OK) return fb->err;
  const uint32_t elem_size = mx_dtype_size(dtype);
  if (elem_size == 0) return MX_ERR_BAD_TENSOR;
  mx_error e = check_shape(fb, t, elem_size, &nbytes);
  if (e == MX_OK) e = check_location(fb, t);
  if (e != MX_OK) return e;
  const uint32_t buffer_idx = mx_fb_u32(fb, t, TENSOR_DATA_BUFFER_IDX);
  e = mx_fb_table_field(fb, t, TENSOR_ALLOCATION_INFO, &alloc);
  if (e != MX_OK) return e;
  if (alloc.pos != 0) {   /* planned */
    /* A planned tensor with initial data is a mutable buffer: its state lives in mutable segments. */
    if (buffer_idx != 0) return MX_ERR_UNSUPPORTED;
    return check_planned(fb, buffer_sizes, &alloc, nbytes);
  }
  /* Index 0 is the reserved empty buffer: only an empty tensor may have neither data nor a plan. */
  if (buffer_idx == 0) return nbytes == 0 ? MX_OK : MX_ERR_UNPLANNED_TENSOR;
  const uint8_t *data;
  e = mx_prog_constant(p, fb, buffer_idx, nbytes, &data);
  if (e == MX_OK && ((uintptr_t)data & (elem_size - 1u)) != 0) e = MX_ERR_MISALIGNED;
  return e;
}
