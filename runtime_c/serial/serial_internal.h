#ifndef MX_SERIAL_INTERNAL_H
#define MX_SERIAL_INTERNAL_H
/* What the files of runtime_c/serial/ share: the wire constants, CRC and SLIP, the response writer, and the
 * command handlers frame.c dispatches to. */
#include "mx_serial.h"

/* Header flags */
#define MX_SERIAL_FLAG_RESPONSE 0x01u
#define MX_SERIAL_FLAG_NAK 0x02u

/* Commands (docs/serial-protocol.md lists their bodies) */
enum {
  MX_CMD_INFO = 0x01,
  MX_CMD_MODEL = 0x02,
  MX_CMD_LOAD_BEGIN = 0x03,
  MX_CMD_LOAD_CHUNK = 0x04,
  MX_CMD_LOAD_END = 0x05,
  MX_CMD_SET_INPUT = 0x06,
  MX_CMD_INVOKE = 0x07,
  MX_CMD_GET_OUTPUT = 0x08,
  MX_CMD_PROFILE = 0x09,
  MX_CMD_RESET = 0x0A,
  MX_CMD_COUNT = 0x0A   /* dense codes: frame.c dispatches through a table */
};

#define MX_SERIAL_SLOT_MAGIC 0x3153584Du   /* "MXS1": model.c describes the slot header */

#define MX_SLIP_END 0xC0u
#define MX_SLIP_ESC 0xDBu
#define MX_SLIP_ESC_END 0xDCu
#define MX_SLIP_ESC_ESC 0xDDu

/* crc32.c: CRC-32 (IEEE 802.3, reflected, as zlib.crc32). Start with crc = 0; chain by passing it back. */
uint32_t mx_crc32(uint32_t crc, const uint8_t *data, uint32_t len);

/* slip.c */
void mx_slip_put(const mx_serial_io *io, uint8_t byte);   /* one byte, escaped */
/* Decodes one received byte into s->rx; returns 1 when it ends a non-empty frame. */
int mx_slip_take(mx_serial *s, uint8_t byte);

/* frame.c: the response being sent. begin writes the header, put the body (teeing it into the replay
 * buffer), end the CRC and the closing END. */
void mx_tx_begin(mx_serial *s, uint8_t cmd, uint8_t flags, uint16_t seq);
void mx_tx_put(mx_serial *s, const void *data, uint32_t len);
void mx_tx_end(mx_serial *s);
void mx_tx_u8(mx_serial *s, uint8_t v);
void mx_tx_u16(mx_serial *s, uint16_t v);
void mx_tx_u32(mx_serial *s, uint32_t v);
void mx_tx_str(mx_serial *s, const char *a);   /* u8 length, then the bytes (NULL: empty) */
/* The body of a failed request: status, the instruction at fault (-1: none), the operator's name. */
void mx_tx_error(mx_serial *s, uint32_t status, int32_t instruction, const char *op, const char *overload);
/* MX_OK alone, or an error body naming nothing in particular. */
void mx_tx_status(mx_serial *s, uint32_t status);

uint16_t mx_rd16(const uint8_t *p);
uint32_t mx_rd32(const uint8_t *p);

/* model.c: the active model */
/* Opens the program at image and loads its method into the work area; MX_OK, a runtime mx_error (the
 * method's error site says where) or MX_SERIAL_WORK_TOO_SMALL. */
uint32_t mx_model_open(mx_serial *s, const uint8_t *image, uint32_t size);
const uint8_t *mx_slot_image(const mx_serial *s, uint32_t slot);
uint32_t mx_slot_generation(const mx_serial *s, uint32_t slot);   /* 0: no valid header */
/* As after a power-up: activates the newest slot that checks and loads (none: s->active = -1) and ends any
 * transfer. Also what a failed LOAD_END falls back on: the new slot has no valid header yet. */
void mx_serial_boot(mx_serial *s);

/* Handlers: each writes the whole response body (after frame.c's mx_tx_begin). */
void mx_cmd_info(mx_serial *s, const uint8_t *body, uint32_t len);
void mx_cmd_model(mx_serial *s, const uint8_t *body, uint32_t len);
void mx_cmd_load_begin(mx_serial *s, const uint8_t *body, uint32_t len);
void mx_cmd_load_chunk(mx_serial *s, const uint8_t *body, uint32_t len);
void mx_cmd_load_end(mx_serial *s, const uint8_t *body, uint32_t len);
void mx_cmd_set_input(mx_serial *s, const uint8_t *body, uint32_t len);
void mx_cmd_invoke(mx_serial *s, const uint8_t *body, uint32_t len);
void mx_cmd_get_output(mx_serial *s, const uint8_t *body, uint32_t len);
void mx_cmd_profile(mx_serial *s, const uint8_t *body, uint32_t len);
typedef void (*mx_cmd_fn)(mx_serial *s, const uint8_t *body, uint32_t len);

#endif
