/* What a loaded method keeps once loading is done: its calls' arguments as value indices (what the fusions left)
 * and its inputs and outputs for the caller (its arenas are kept from the start: method_carve.c); the rest is read
 * from the program again before each call (call_frame.c). */
#include "loader.h"

/* Input or output `i` of the caller's list: a tensor is copied whole (its sizes stay in the program); any other
 * value keeps its tag only, as the API hands out tensors alone. */
static void keep_io(mx_method *m, uint32_t at, uint32_t value) {
  const mx_value *v = &m->values[value];
  mx_value *kept = &m->io_values[at];
  kept->tag = v->tag;
  if (v->tag != MX_TAG_TENSOR) return;
  m->io_tensors[at] = *v->u.t;
  kept->u.t = &m->io_tensors[at];
}

void mx_keep_method(mx_load_ctx *ctx) {
  mx_method *m = ctx->m;
  const uint32_t args = (uint32_t)(ctx->args - m->load_args);
  for (uint32_t k = 0; k < args; k++) m->arg_ids[k] = (uint16_t)(m->load_args[k] - m->values);
  for (uint32_t i = 0; i < m->input_count; i++) keep_io(m, i, m->inputs[i]);
  for (uint32_t i = 0; i < m->output_count; i++) keep_io(m, m->input_count + i, m->outputs[i]);
}
