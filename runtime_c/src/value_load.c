/* EValues to mx_values. Two passes: scalars, strings and tensors first, then int and tensor lists, whose items
 * name values that may be declared after the list (read from what the first pass loaded, not from the file again). */
#include <string.h>

#include "loader.h"
#include "schema_ids.h"

static mx_error open_value(mx_load_ctx *ctx, uint32_t i, uint8_t *tag, mx_fb_table *val) {
  mx_fb_table ev;
  mx_error e = mx_fb_vec_table(&ctx->fb, &ctx->values, i, &ev);
  if (e == MX_OK) e = mx_fb_union(&ctx->fb, &ev, EVALUE_VAL_TYPE, MX_KERNEL_TYPES_MAX, tag, val);
  return e;
}

/* IntList items are EValue indices of Int values; the ints are resolved once, here. */
static mx_error load_int_list(mx_load_ctx *ctx, const mx_fb_table *val, mx_value *out) {
  const mx_value *values = ctx->m->values;
  mx_fb_vec items;
  mx_error e = mx_fb_vector(&ctx->fb, val, SCALAR_VALUE, 8, &items);
  if (e != MX_OK) return e;
  if (items.len > ctx->ints_left) return MX_ERR_META_POOL_FULL;
  int64_t *dst = ctx->ints;
  for (uint32_t k = 0; k < items.len; k++) {
    uint64_t idx = mx_fb_vec_u64(&ctx->fb, &items, k);   /* a negative one reads as 2^63 or more */
    if (idx >= ctx->values.len) return MX_ERR_BAD_INDEX;
    if (values[idx].tag != MX_TAG_INT) return MX_ERR_BAD_VALUE_TYPE;
    dst[k] = mx_value_int(&values[idx]);
  }
  out->u.ints.items = dst;
  out->u.ints.len = items.len;
  ctx->ints += items.len;
  ctx->ints_left -= items.len;
  return MX_OK;
}

static mx_error load_double_list(mx_load_ctx *ctx, const mx_fb_table *val, mx_value *out) {
  mx_fb_vec items;
  mx_error e = mx_fb_vector(&ctx->fb, val, SCALAR_VALUE, 8, &items);
  if (e != MX_OK) return e;
  if (items.len > ctx->doubles_left) return MX_ERR_META_POOL_FULL;
  /* Copied: the file gives no 8-byte alignment guarantee for the program buffer. */
  if (items.len) memcpy(ctx->doubles, ctx->fb.buf + items.pos, (size_t)items.len * sizeof(double));
  out->u.doubles.items = ctx->doubles;
  out->u.doubles.len = items.len;
  ctx->doubles += items.len;
  ctx->doubles_left -= items.len;
  return MX_OK;
}

/* An Int's or a Double's 8 bytes, into the value's two words. */
static mx_error load_bits(mx_fb *fb, const mx_fb_table *val, mx_value *out) {
  uint64_t bits;   /* an absent field is 0 or 0.0: zero bits either way */
  mx_error e = mx_fb_u64(fb, val, SCALAR_VALUE, 0, &bits);
  memcpy(out->u.bits, &bits, sizeof bits);
  return e;
}

static mx_error load_plain(mx_load_ctx *ctx, uint8_t tag, const mx_fb_table *val, mx_value *out) {
  mx_fb *fb = &ctx->fb;
  mx_fb_vec items;
  uint8_t b;
  bool present;
  mx_error e;
  switch (tag) {
    case MX_TAG_NONE:
    case MX_TAG_NULL: return MX_OK;
    case MX_TAG_INT:
    case MX_TAG_DOUBLE: return load_bits(fb, val, out);
    case MX_TAG_BOOL:
      e = mx_fb_u8(fb, val, SCALAR_VALUE, 0, &b);
      out->u.b = b != 0;
      return e;
    case MX_TAG_STRING: return mx_fb_string(fb, val, SCALAR_VALUE, &out->u.str.chars, &out->u.str.len, &present);
    case MX_TAG_TENSOR:
      if (ctx->tensors_left == 0) return MX_ERR_META_POOL_FULL;
      out->u.t = ctx->tensors++;
      ctx->tensors_left--;
      return mx_load_tensor(ctx, val, out->u.t);
    case MX_TAG_DOUBLE_LIST: return load_double_list(ctx, val, out);
    case MX_TAG_BOOL_LIST:
      e = mx_fb_vector(fb, val, SCALAR_VALUE, 1, &items);
      out->u.bools.items = fb->buf + items.pos;
      out->u.bools.len = items.len;
      return e;
    default: return MX_OK;   /* int and tensor lists: second pass */
  }
}

static mx_error load_tensor_list(mx_load_ctx *ctx, const mx_fb_table *val, bool optional, mx_value *out) {
  mx_fb_vec items;
  mx_error e = mx_fb_vector(&ctx->fb, val, SCALAR_VALUE, 4, &items);
  if (e != MX_OK) return e;
  if (items.len > ctx->tensor_refs_left) return MX_ERR_META_POOL_FULL;
  for (uint32_t k = 0; k < items.len; k++) {
    int32_t idx = mx_fb_vec_i32(&ctx->fb, &items, k);
    mx_tensor *t = NULL;
    if (idx == -1 && optional) {
      t = NULL;
    } else if (idx < 0 || (uint32_t)idx >= ctx->values.len) {
      return MX_ERR_BAD_INDEX;
    } else {
      const mx_value *v = &ctx->m->values[idx];
      if (v->tag == MX_TAG_TENSOR) {
        t = v->u.t;
      } else if (!(optional && (v->tag == MX_TAG_NULL || v->tag == MX_TAG_NONE))) {
        return MX_ERR_BAD_VALUE_TYPE;
      }
    }
    ctx->tensor_refs[k] = t;
  }
  out->u.tensors.items = ctx->tensor_refs;
  out->u.tensors.len = items.len;
  ctx->tensor_refs += items.len;
  ctx->tensor_refs_left -= items.len;
  return MX_OK;
}

mx_error mx_load_values(mx_load_ctx *ctx) {
  mx_method *m = ctx->m;
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < ctx->values.len; i++) {
      uint8_t tag = m->values[i].tag;   /* the second pass: as the first read it */
      mx_fb_table val;
      mx_value *out = &m->values[i];
      bool list = tag == MX_TAG_INT_LIST || tag == MX_TAG_TENSOR_LIST || tag == MX_TAG_OPT_TENSOR_LIST;
      if (pass == 1 && !list) continue;
      mx_error e = open_value(ctx, i, &tag, &val);
      if (e == MX_OK && pass == 0) {
        out->tag = tag;
        e = load_plain(ctx, tag, &val, out);
      } else if (e == MX_OK && tag == MX_TAG_INT_LIST) {
        e = load_int_list(ctx, &val, out);
      } else if (e == MX_OK) {
        e = load_tensor_list(ctx, &val, tag == MX_TAG_OPT_TENSOR_LIST, out);
      }
      if (e != MX_OK) {
        m->site.value = i;
        return e;
      }
    }
  }
  return MX_OK;
}
