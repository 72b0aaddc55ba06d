/* LOAD_BEGIN / LOAD_CHUNK / LOAD_END: a new model goes into the slot that is not active, and becomes
 * active only when its whole-image CRC checks and it loads; until its header is written (last), the
 * previous model stays the one a restart picks. */
#include "serial_internal.h"

void mx_cmd_load_begin(mx_serial *s, const uint8_t *body, uint32_t len) {
  (void)len;
  const uint32_t size = mx_rd32(body), crc = mx_rd32(body + 4);
  if (size == 0 || size > s->cfg.store->slot_bytes - MX_SERIAL_SLOT_HEADER) {
    mx_tx_status(s, MX_SERIAL_IMAGE_TOO_LARGE);
    return;
  }
  const uint32_t slot = s->active == 0 ? 1u : 0u;
  s->loading = 0;
  if (s->cfg.store->erase(s->cfg.store->ctx, slot) != 0) {
    mx_tx_status(s, MX_SERIAL_SLOT_WRITE);
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
  if (!s->loading) {
    status = MX_SERIAL_NO_LOAD;
  } else {
    const uint32_t offset = mx_rd32(body), n = len - 4;
    if (offset > s->load_size || n > s->load_size - offset) {
      status = MX_SERIAL_OUT_OF_RANGE;
    } else if (s->cfg.store->write(s->cfg.store->ctx, s->load_slot, MX_SERIAL_SLOT_HEADER + offset, body + 4, n) != 0) {
      status = MX_SERIAL_SLOT_WRITE;
    }
  }
  mx_tx_status(s, status);
}

void mx_cmd_load_end(mx_serial *s, const uint8_t *body, uint32_t len) {
  (void)body;
  (void)len;
  if (!s->loading) {
    mx_tx_status(s, MX_SERIAL_NO_LOAD);
    return;
  }
  s->loading = 0;
  const uint32_t slot = s->load_slot;
  const uint8_t *image = mx_slot_image(s, slot);
  if (mx_crc32(0, image, s->load_size) != s->load_crc) {
    mx_tx_status(s, MX_SERIAL_IMAGE_CRC);
    return;
  }
  uint32_t e = mx_model_open(s, image, s->load_size);
  if (e != MX_OK) {
    /* the site's names point into the new image, which stays in its slot until the next LOAD_BEGIN */
    const mx_error_site site = s->method.site;
    mx_serial_boot(s);
    mx_tx_error(s, e, site.instruction, site.op_name, site.op_overload);
    return;
  }
  /* Newer than both slots, not just the active one: the other may hold a valid header that failed to load
   * (a firmware without its operators), and must not win over this one at the next boot. Little-endian
   * words as they lie in memory (commands.c asserts the byte order). */
  const uint32_t other = mx_slot_generation(s, slot ^ 1u), mine = mx_slot_generation(s, slot);
  const uint32_t generation = (other > mine ? other : mine) + 1u;
  uint32_t header[5] = {MX_SERIAL_SLOT_MAGIC, s->load_size, s->load_crc, generation, 0};
  header[4] = mx_crc32(0, (const uint8_t *)header, 16);
  if (s->cfg.store->write(s->cfg.store->ctx, slot, 0, header, sizeof header) != 0) {
    mx_serial_boot(s);
    mx_tx_status(s, MX_SERIAL_SLOT_WRITE);
    return;
  }
  s->active = (int8_t)slot;
  mx_tx_u16(s, MX_OK);
  mx_tx_u8(s, (uint8_t)slot);
  mx_tx_u32(s, generation);
}
