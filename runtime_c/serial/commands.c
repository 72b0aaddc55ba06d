/* The commands that read the device and run its model: INFO, MODEL, SET_INPUT, INVOKE, GET_OUTPUT,
 * PROFILE. Bodies are little-endian; docs/serial-protocol.md gives each layout. */
#include <string.h>

#include "serial_internal.h"

static void status_only(mx_serial *s, uint32_t status) {
  if (status == MX_OK) {
    mx_tx_u16(s, MX_OK);
  } else {
    mx_tx_error(s, status, -1, NULL, NULL);
  }
}

void mx_cmd_info(mx_serial *s, const uint8_t *body, uint32_t len) {
  (void)body;
  (void)len;
  const int active = s->active;
  mx_tx_u16(s, MX_OK);
  mx_tx_u16(s, MX_SERIAL_PROTOCOL_VERSION);
  mx_tx_u16(s, MX_SERIAL_MAX_FRAME);
  mx_tx_u32(s, s->cfg.work_bytes);
  mx_tx_u32(s, s->cfg.store->slot_bytes - MX_SERIAL_SLOT_HEADER);
  mx_tx_u8(s, (uint8_t)(active < 0 ? 0xFF : active));
  mx_tx_u32(s, active < 0 ? 0 : s->active_generation);
  mx_tx_u32(s, active < 0 ? 0 : s->program.size);
  mx_tx_u32(s, active < 0 ? 0 : mx_rd32(s->cfg.store->map(s->cfg.store->ctx, (uint32_t)active) + 8));
  mx_tx_str(s, s->cfg.board, NULL);
  mx_tx_str(s, s->cfg.firmware, NULL);
  mx_tx_u16(s, (uint16_t)mx_kernel_table_len);
  for (uint32_t i = 0; i < mx_kernel_table_len; i++) {
    mx_tx_str(s, mx_kernel_table[i].name, mx_kernel_table[i].overload);
  }
}

static void tensor_spec(mx_serial *s, const mx_tensor *t) {
  if (t == NULL) {   /* a non-tensor input or output: the host refuses such a model */
    mx_tx_u8(s, 0xFF);
    mx_tx_u8(s, 0);
    mx_tx_u32(s, 0);
    return;
  }
  mx_tx_u8(s, t->dtype);
  mx_tx_u8(s, t->dim);
  mx_tx_put(s, t->dim_order, t->dim);
  for (uint32_t d = 0; d < t->dim; d++) mx_tx_u32(s, (uint32_t)t->sizes[d]);
  mx_tx_u32(s, t->nbytes);
}

void mx_cmd_model(mx_serial *s, const uint8_t *body, uint32_t len) {
  (void)body;
  (void)len;
  if (s->active < 0) {
    status_only(s, MX_SERIAL_NO_MODEL);
    return;
  }
  const mx_method *m = &s->method;
  mx_tx_u16(s, MX_OK);
  mx_tx_u16(s, (uint16_t)m->input_count);
  mx_tx_u16(s, (uint16_t)m->output_count);
  mx_tx_u32(s, m->instr_count);
  for (uint32_t i = 0; i < m->input_count; i++) tensor_spec(s, mx_method_input(m, i));
  for (uint32_t i = 0; i < m->output_count; i++) tensor_spec(s, mx_method_output(m, i));
}

/* The tensor an (index, offset, length) request addresses, or a status. */
static uint32_t locate(mx_serial *s, mx_tensor *t, uint32_t offset, uint32_t n) {
  if (s->active < 0) return MX_SERIAL_NO_MODEL;
  if (t == NULL || offset > t->nbytes || n > t->nbytes - offset) return MX_SERIAL_OUT_OF_RANGE;
  return MX_OK;
}

void mx_cmd_set_input(mx_serial *s, const uint8_t *body, uint32_t len) {
  if (len < 6) {
    status_only(s, MX_SERIAL_BAD_REQUEST);
    return;
  }
  const uint32_t offset = mx_rd32(body + 2), n = len - 6;
  mx_tensor *t = s->active < 0 ? NULL : mx_method_input(&s->method, mx_rd16(body));
  const uint32_t status = locate(s, t, offset, n);
  if (status == MX_OK && n > 0) memcpy((uint8_t *)t->data + offset, body + 6, n);
  status_only(s, status);
}

void mx_cmd_invoke(mx_serial *s, const uint8_t *body, uint32_t len) {
  (void)body;
  if (len != 0 || s->active < 0) {
    status_only(s, len != 0 ? MX_SERIAL_BAD_REQUEST : MX_SERIAL_NO_MODEL);
    return;
  }
  if (s->profile != NULL) memset(s->profile, 0, s->method.instr_count * 4u);
  const uint64_t start = s->cfg.io->ticks(s->cfg.io->ctx);
  const mx_error e = mx_method_execute(&s->method);
  s->invoke_ticks = s->cfg.io->ticks(s->cfg.io->ctx) - start;
  s->invoked = 1;
  if (e != MX_OK) {
    const mx_error_site *site = mx_method_error_site(&s->method);
    mx_tx_error(s, e, site->instruction, site->op_name, site->op_overload);
    return;
  }
  mx_tx_u16(s, MX_OK);
  mx_tx_u32(s, (uint32_t)s->invoke_ticks);
  mx_tx_u32(s, (uint32_t)(s->invoke_ticks >> 32));
}

void mx_cmd_get_output(mx_serial *s, const uint8_t *body, uint32_t len) {
  if (len != 8) {
    status_only(s, MX_SERIAL_BAD_REQUEST);
    return;
  }
  const uint32_t offset = mx_rd32(body + 2), n = mx_rd16(body + 6);
  const mx_tensor *t = s->active < 0 ? NULL : mx_method_output(&s->method, mx_rd16(body));
  const uint32_t status = locate(s, (mx_tensor *)t, offset, n);
  status_only(s, status);
  if (status == MX_OK) mx_tx_put(s, (const uint8_t *)t->data + offset, n);
}

/* Per instruction: ticks u32, kind u8 (mx_instr kind), the name of what ran. */
void mx_cmd_profile(mx_serial *s, const uint8_t *body, uint32_t len) {
  const mx_method *m = &s->method;
  uint32_t status = len != 4 ? MX_SERIAL_BAD_REQUEST : s->active < 0 ? MX_SERIAL_NO_MODEL : MX_OK;
  if (status == MX_OK && !s->invoked) status = MX_SERIAL_NOT_INVOKED;
  if (status == MX_OK && s->profile == NULL) status = MX_SERIAL_WORK_TOO_SMALL;
  if (status != MX_OK) {
    status_only(s, status);
    return;
  }
  const uint32_t first = mx_rd16(body), count = mx_rd16(body + 2);
  mx_tx_u16(s, MX_OK);
  mx_tx_u32(s, m->instr_count);
  mx_tx_u32(s, (uint32_t)s->invoke_ticks);
  mx_tx_u32(s, (uint32_t)(s->invoke_ticks >> 32));
  for (uint32_t i = first; i < m->instr_count && i - first < count; i++) {
    const mx_instr *ins = &m->instrs[i];
    mx_tx_u32(s, s->profile[i]);
    mx_tx_u8(s, ins->kind);
    if (ins->kind == MX_INSTR_KERNEL) {
      mx_tx_str(s, m->op_names[ins->op], m->op_overloads[ins->op]);
    } else if (ins->kind == MX_INSTR_FUSED) {
      mx_tx_str(s, mx_kernel_table[ins->op].name, mx_kernel_table[ins->op].overload);
    } else if (ins->kind == MX_INSTR_DELEGATE) {
      mx_tx_str(s, m->delegates[ins->op].id, NULL);
    } else {
      mx_tx_str(s, NULL, NULL);
    }
  }
}
