/* The commands that read the device and run its model: INFO, MODEL, SET_INPUT, INVOKE, GET_OUTPUT,
 * PROFILE. Bodies are little-endian; docs/serial-protocol.md gives each layout. */
#include <string.h>

#include "serial_internal.h"

/* Tick counts and slot header words go out as they lie in memory: every device this runs on (Cortex-M, the
 * hosts) is little-endian, like the wire. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the wire format is little-endian");

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
  /* image size, image CRC and generation, straight from the active slot's header (zeros without one) */
  static const uint8_t none[12];
  mx_tx_put(s, active < 0 ? none : s->cfg.store->map(s->cfg.store->ctx, (uint32_t)active) + 4, 12);
  mx_tx_str(s, s->cfg.board);
  mx_tx_str(s, s->cfg.firmware);
  mx_tx_u16(s, (uint16_t)mx_kernel_table_len);
  for (uint32_t i = 0; i < mx_kernel_table_len; i++) {
    mx_tx_str(s, mx_kernel_table[i].name);
    mx_tx_str(s, mx_kernel_table[i].overload);
  }
}

static void tensor_spec(mx_serial *s, const mx_tensor *t) {
  if (t == NULL) {   /* a non-tensor input or output (dtype 0xFF, no dims, 0 bytes): the host refuses it */
    static const uint8_t not_a_tensor[6] = {0xFF};
    mx_tx_put(s, not_a_tensor, sizeof not_a_tensor);
    return;
  }
  mx_tx_u8(s, t->dtype);
  mx_tx_u8(s, t->dim);
  mx_tx_put(s, t->dim_order, t->dim);
  for (uint32_t d = 0; d < t->dim; d++) mx_tx_u32(s, (uint32_t)t->sizes[d]);
  mx_tx_u32(s, mx_tensor_nbytes(t));
}

void mx_cmd_model(mx_serial *s, const uint8_t *body, uint32_t len) {
  (void)body;
  (void)len;
  if (s->active < 0) {
    mx_tx_status(s, MX_SERIAL_NO_MODEL);
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

/* SET_INPUT (index u16, offset u32, bytes) and GET_OUTPUT (index u16, offset u32, length u16): a range of
 * one tensor's bytes, checked against the tensor. */
static void tensor_bytes(mx_serial *s, const uint8_t *body, uint32_t len, int output) {
  /* frame.c checked the body's length */
  const uint32_t index = mx_rd16(body), offset = mx_rd32(body + 2), n = output ? mx_rd16(body + 6) : len - 6;
  mx_tensor *t = s->active < 0 ? NULL
                 : output      ? mx_method_output(&s->method, index)
                               : mx_method_input(&s->method, index);
  const uint32_t bytes = t != NULL ? mx_tensor_nbytes(t) : 0u;
  const uint32_t status = s->active < 0                                       ? MX_SERIAL_NO_MODEL
                          : t == NULL || offset > bytes || n > bytes - offset ? MX_SERIAL_OUT_OF_RANGE
                                                                              : MX_OK;
  if (status == MX_OK && !output) memcpy((uint8_t *)t->data + offset, body + 6, n);
  mx_tx_status(s, status);
  if (status == MX_OK && output) mx_tx_put(s, (const uint8_t *)t->data + offset, n);
}

void mx_cmd_set_input(mx_serial *s, const uint8_t *body, uint32_t len) { tensor_bytes(s, body, len, 0); }
void mx_cmd_get_output(mx_serial *s, const uint8_t *body, uint32_t len) { tensor_bytes(s, body, len, 1); }

void mx_cmd_invoke(mx_serial *s, const uint8_t *body, uint32_t len) {
  (void)body;
  (void)len;
  if (s->active < 0) {
    mx_tx_status(s, MX_SERIAL_NO_MODEL);
    return;
  }
  const uint64_t start = s->cfg.io->ticks(s->cfg.io->ctx);
  const mx_error e = mx_method_execute(&s->method);
  s->invoke_ticks = s->cfg.io->ticks(s->cfg.io->ctx) - start;
  if (e != MX_OK) {
    const mx_error_site *site = mx_method_error_site(&s->method);
    mx_tx_error(s, e, site->instruction, site->op_name, site->op_overload);
    return;
  }
  mx_tx_u16(s, MX_OK);
  mx_tx_put(s, &s->invoke_ticks, 8);
}

/* Per instruction: ticks u32, kind u8 (mx_instr kind), name and overload of what ran. */
void mx_cmd_profile(mx_serial *s, const uint8_t *body, uint32_t len) {
  const mx_method *m = &s->method;
  (void)len;
  if (s->profile == NULL) {   /* no model (model.c clears it), or no room left for it in the work area */
    mx_tx_status(s, s->active < 0 ? MX_SERIAL_NO_MODEL : MX_SERIAL_WORK_TOO_SMALL);
    return;
  }
  const uint32_t first = mx_rd16(body), count = mx_rd16(body + 2);
  mx_tx_u16(s, MX_OK);
  mx_tx_u32(s, m->instr_count);
  mx_tx_put(s, &s->invoke_ticks, 8);
  for (uint32_t i = first; i < m->instr_count && i - first < count; i++) {
    const mx_instr *ins = &m->instrs[i];
    mx_tx_u32(s, s->profile[i]);
    mx_tx_u8(s, ins->kind);
    /* the name and overload of what ran: a kernel of the program, a fused kernel, a delegate */
    const char *name = NULL, *overload = NULL;
    if (ins->kind == MX_INSTR_DELEGATE) {
      name = m->delegates[ins->op].id;
    } else if (ins->kind != MX_INSTR_FUSED_AWAY) {   /* a serving model's kernels are resolved */
      const mx_kernel_entry *k = ins->kind == MX_INSTR_FUSED ? &mx_kernel_table[ins->op] : m->ops[ins->op];
      name = k->name;
      overload = k->overload;
    }
    mx_tx_str(s, name);
    mx_tx_str(s, overload);
  }
}
