/* A method's delegates at load: each one's processed blob found and bounds-checked, its backend matched
 * by id, and the backend's init run over the blob with a state carved from the metadata pool. */
#include "delegate.h"
#include "schema_ids.h"

static const mx_backend *find_backend(const char *id) {
  for (uint32_t i = 0; i < mx_backend_table_len; i++) {
    if (mx_str_eq(mx_backend_table[i]->id, id)) return mx_backend_table[i];
  }
  return NULL;
}

/* An absent id reads as "": no backend has it, so loading names the delegate. */
static mx_error delegate_id(mx_fb *fb, const mx_fb_vec *delegates, uint32_t i, mx_fb_table *d, const char **id) {
  (void)mx_fb_vec_table(fb, delegates, i, d);
  return mx_fb_string(fb, d, DELEGATE_ID, id);
}

mx_error mx_delegate_count(mx_fb *fb, const mx_fb_table *plan, mx_meta_counts *c) {
  mx_fb_vec delegates;
  mx_error e = mx_fb_vector(fb, plan, PLAN_DELEGATES, 4, &delegates);
  c->delegates = delegates.len;
  for (uint32_t i = 0; e == MX_OK && i < delegates.len; i++) {
    mx_fb_table d;
    const char *id;
    e = delegate_id(fb, &delegates, i, &d, &id);
    const mx_backend *b = e == MX_OK ? find_backend(id) : NULL;
    if (b != NULL) c->delegate_state = mx_meta_add(c->delegate_state, MX_META_ALIGN8(b->state_bytes));
  }
  return e;
}

/* The blob a BackendDelegateDataReference names: program.backend_delegate_data[index] or segment index. */
static mx_error processed_data(mx_load_ctx *ctx, const mx_fb_table *d, const uint8_t **data, uint32_t *size) {
  mx_fb *fb = &ctx->fb;
  mx_fb_table ref, root, inline_data;
  mx_fb_vec blobs, bytes;
  mx_error e = mx_fb_table_field(fb, d, DELEGATE_PROCESSED, &ref);
  if (e == MX_OK && ref.pos == 0) e = MX_ERR_BAD_DELEGATE_DATA;
  if (e != MX_OK) return e;
  const uint8_t location = mx_fb_u8(fb, &ref, DATA_REF_LOCATION);
  const uint32_t index = mx_fb_u32(fb, &ref, DATA_REF_INDEX);
  if (fb->err != MX_OK) return fb->err;
  if (location == DATA_LOCATION_SEGMENT) return mx_prog_segment(ctx->p, fb, index, data, size);
  if (location != DATA_LOCATION_INLINE) return MX_ERR_BAD_DELEGATE_DATA;
  (void)mx_fb_root(fb, &root);
  e = mx_fb_vector(fb, &root, PROGRAM_BACKEND_DELEGATE_DATA, 4, &blobs);
  if (e != MX_OK) return e;
  if (index >= blobs.len) return MX_ERR_BAD_INDEX;
  (void)mx_fb_vec_table(fb, &blobs, index, &inline_data);
  e = mx_fb_vector(fb, &inline_data, INLINE_DATA_DATA, 1, &bytes);
  if (e != MX_OK) return e;
  *data = fb->buf + bytes.pos;
  *size = bytes.len;
  return MX_OK;
}

static mx_error load_delegate(mx_load_ctx *ctx, const mx_fb_vec *delegates, uint32_t i, mx_delegate *out) {
  mx_fb_table d;
  const uint8_t *data;
  uint32_t size;
  mx_error e = delegate_id(&ctx->fb, delegates, i, &d, &out->id);
  if (e == MX_OK) e = processed_data(ctx, &d, &data, &size);
  if (e != MX_OK || ctx->cfg->skip_kernels) return e;
  out->backend = find_backend(out->id);
  if (out->backend == NULL) return MX_ERR_BACKEND_MISSING;
  uint64_t need = MX_META_ALIGN8(out->backend->state_bytes);
  if (need > ctx->delegate_state_left) return MX_ERR_META_POOL_FULL;
  out->state = ctx->delegate_state;
  ctx->delegate_state += need;
  ctx->delegate_state_left -= need;
  return out->backend->init(data, size, out->state);
}

mx_error mx_delegate_load(mx_load_ctx *ctx) {
  mx_method *m = ctx->m;
  mx_fb_vec delegates;
  mx_error e = mx_fb_vector(&ctx->fb, &ctx->plan, PLAN_DELEGATES, 4, &delegates);
  if (e == MX_OK && delegates.len > ctx->delegate_count) e = MX_ERR_META_POOL_FULL;
  for (uint32_t i = 0; e == MX_OK && i < delegates.len; i++) {
    e = load_delegate(ctx, &delegates, i, &m->delegates[i]);
    if (e != MX_OK) {
      m->site.delegate_index = (int32_t)i;
      m->site.delegate_id = m->delegates[i].id;
    }
  }
  return e;
}

mx_error mx_delegate_check(mx_method *m, uint32_t delegate, mx_value *const *args, uint32_t nargs) {
  const mx_delegate *d = &m->delegates[delegate];
  if (d->backend == NULL || d->backend->check == NULL) return MX_OK;
  mx_arg_error r = d->backend->check(d->state, args, nargs);
  if (r != MX_OK) {
    m->site.arg = MX_ERROR_ARG(r);
    m->site.delegate_index = (int32_t)delegate;
    m->site.delegate_id = d->id;
  }
  return MX_ERROR_CODE(r);
}
