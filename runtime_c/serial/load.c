/* LOAD_BEGIN / LOAD_CHUNK / LOAD_END: a new model goes into the slot that is not active, and becomes
 * active only when its whole-image CRC checks and it loads; until its header is written (last), the
 * previous model stays the one a restart picks. */
#include "serial_internal.h"

void mx_cmd_load_begin(mx_serial *s, const uint8_t *body, uint32_t len) {
  if (len != 8) {
    mx_tx_error(s, MX_SERIAL_BAD_REQUEST, -1, NULL, NULL);
    return;
  }
  const uint32_t size = mx_rd32(body), crc = mx_rd32(body + 4);
  if (size == 0 || size > s->cfg.store->slot_bytes - MX_SERIAL_SLOT_HEADER) {
    mx_tx_error(s, MX_SERIAL_IMAGE_TOO_LARGE, -1, NULL, NULL);
    return;
  }
  const uint32_t slot = s->active == 0 ? 1u : 0u;
  s->loading = 0;
  if (s->cfg.store->erase(s->cfg.store->ctx, slot) != 0) {
    mx_tx_error(s, MX_SERIAL_SLOT_WRITE, -1, NULL, NULL);
    return;
  }
  s->loading = 1;
  s->load_slot = (uint8_t)slot;
  s->load_size = size;
  s->load_crc = crc;
  mx_tx_u16(s, MX_OK);
  mx_tx_u8(s, (uint8_t)slot);
}

void mx_cmd_load_chunk(mx_serial *s, const uint8_t *body, uint32_t len) {
  uint32_t status = MX_OK;
  if (len < 4) {
    status = MX_SERIAL_BAD_REQUEST;
  } else if (!s->loading) {
    status = MX_SERIAL_NO_LOAD;
  } else {
    const uint32_t offset = mx_rd32(body), n = len - 4;
    if (offset > s->load_size || n > s->load_size - offset) {
      status = MX_SERIAL_OUT_OF_RANGE;
    } else if (s->cfg.store->write(s->cfg.store->ctx, s->load_slot, MX_SERIAL_SLOT_HEADER + offset, body + 4, n) != 0) {
      status = MX_SERIAL_SLOT_WRITE;
    }
  }
  if (status != MX_OK) {
    mx_tx_error(s, status, -1, NULL, NULL);
  } else {
    mx_tx_u16(s, MX_OK);
  }
}

static void reopen_previous(mx_serial *s, int32_t previous) {
  uint32_t generation = 0;
  if (previous >= 0 && mx_model_open_slot(s, (uint32_t)previous, &generation) == MX_OK) {
    s->active_generation = generation;
  } else {
    s->active_generation = 0;
  }
}

void mx_cmd_load_end(mx_serial *s, const uint8_t *body, uint32_t len) {
  (void)body;
  if (len != 0) {
    mx_tx_error(s, MX_SERIAL_BAD_REQUEST, -1, NULL, NULL);
    return;
  }
  if (!s->loading) {
    mx_tx_error(s, MX_SERIAL_NO_LOAD, -1, NULL, NULL);
    return;
  }
  s->loading = 0;
  const uint32_t slot = s->load_slot;
  const uint8_t *image = mx_slot_image(s, slot);
  if (mx_crc32(0, image, s->load_size) != s->load_crc) {
    mx_tx_error(s, MX_SERIAL_IMAGE_CRC, -1, NULL, NULL);
    return;
  }
  const int32_t previous = s->active;
  uint32_t e = mx_model_open(s, image, s->load_size);
  if (e != MX_OK) {
    /* the site's names point into the new image, which stays in its slot until the next LOAD_BEGIN */
    const mx_error_site site = s->method.site;
    reopen_previous(s, previous);
    mx_tx_error(s, e, site.instruction, site.op_name, site.op_overload);
    return;
  }
  uint8_t header[20];
  mx_wr32(header, 0x3153584Du);
  mx_wr32(header + 4, s->load_size);
  mx_wr32(header + 8, s->load_crc);
  mx_wr32(header + 12, s->active_generation + 1u);
  mx_wr32(header + 16, mx_crc32(0, header, 16));
  if (s->cfg.store->write(s->cfg.store->ctx, slot, 0, header, sizeof header) != 0) {
    reopen_previous(s, previous);
    mx_tx_error(s, MX_SERIAL_SLOT_WRITE, -1, NULL, NULL);
    return;
  }
  s->active = (int8_t)slot;
  s->active_generation++;
  mx_tx_u16(s, MX_OK);
  mx_tx_u8(s, (uint8_t)slot);
  mx_tx_u32(s, s->active_generation);
}
