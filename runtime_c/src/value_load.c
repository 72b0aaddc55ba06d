/* Every value of the method, built once from the program that mx_count_meta checked (call_frame.c). Two passes:
 * lists last, as a tensor list names the tensors built for values that may be declared after it (and lists were
 * checked last before). */
#include "loader.h"

mx_error mx_load_values(mx_load_ctx *ctx) {
  mx_method *m = ctx->m;
  mx_builder *r = &ctx->bld;
  r->m = m;
  r->load = true;
  m->frame.values_pos = ctx->values.pos;
  mx_prog_reader(ctx->p, &r->fb);
  for (uint32_t pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < ctx->values.len; i++) {
      uint8_t tag;
      (void)mx_fb_value(r->fb.buf, ctx->values.pos, i, &tag);
      if ((tag == MX_TAG_INT_LIST || tag == MX_TAG_TENSOR_LIST || tag == MX_TAG_OPT_TENSOR_LIST) != (pass == 1))
        continue;
      mx_error e = mx_build_value(r, i, &m->values[i]);
      if (e != MX_OK) {
        m->site.value = (int32_t)i;
        return e;
      }
    }
  }
  return MX_OK;
}
