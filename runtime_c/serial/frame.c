/* Frames: header (command u8, flags u8, sequence u16) + body + CRC-32 of both, little-endian, SLIP-framed.
 * Stop-and-wait: the response to a request is its acknowledgement. A request that repeats the last one
 * (same sequence and same CRC: the host resent it because our response was lost) is answered again without
 * executing it twice: from the replay buffer when the response was short, else by recomputing it, which
 * only read-only commands need (their responses are the long ones: INFO, MODEL, GET_OUTPUT, PROFILE). */
#include <string.h>

#include "serial_internal.h"

uint16_t mx_rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
uint32_t mx_rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void tx_raw(mx_serial *s, const uint8_t *data, uint32_t len) {
  for (uint32_t i = 0; i < len; i++) mx_slip_put(s->cfg.io, data[i]);
  s->tx_crc = mx_crc32(s->tx_crc, data, len);
}

void mx_tx_begin(mx_serial *s, uint8_t cmd, uint8_t flags, uint16_t seq) {
  const uint8_t header[4] = {cmd, flags, (uint8_t)seq, (uint8_t)(seq >> 8)};
  s->tx_crc = 0;
  s->tx_body_len = 0;
  s->cfg.io->putc(s->cfg.io->ctx, MX_SLIP_END);
  tx_raw(s, header, 4);
}

void mx_tx_put(mx_serial *s, const void *data, uint32_t len) {
  const uint8_t *p = data;
  for (uint32_t i = 0; i < len; i++, s->tx_body_len++) {
    if (s->tx_body_len < MX_SERIAL_REPLAY_BYTES) s->replay[s->tx_body_len] = p[i];
  }
  tx_raw(s, p, len);
}

void mx_tx_u8(mx_serial *s, uint8_t v) { mx_tx_put(s, &v, 1); }
void mx_tx_u16(mx_serial *s, uint16_t v) {
  const uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  mx_tx_put(s, b, 2);
}
void mx_tx_u32(mx_serial *s, uint32_t v) {
  const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  mx_tx_put(s, b, 4);
}

/* Names come from the program: cut at max bytes, so a hostile one cannot break the length byte. */
static void put_name(mx_serial *s, const char *a, uint32_t max) {
  const size_t n = a != NULL ? strlen(a) : 0;
  const uint8_t len = (uint8_t)(n < max ? n : max);
  mx_tx_u8(s, len);
  mx_tx_put(s, a, len);
}

void mx_tx_str(mx_serial *s, const char *a) { put_name(s, a, 255u); }

/* Cut so that every error body fits the replay buffer (2 + 4 + 1 + 46 + 1 + 10 = 64 bytes): a resent request
 * that failed gets its failure again, never a second execution. */
_Static_assert(2 + 4 + 1 + 46 + 1 + 10 <= MX_SERIAL_REPLAY_BYTES, "error bodies must fit the replay buffer");
void mx_tx_error(mx_serial *s, uint32_t status, int32_t instruction, const char *op, const char *overload) {
  mx_tx_u16(s, (uint16_t)status);
  mx_tx_u32(s, (uint32_t)instruction);
  put_name(s, op, 46u);
  put_name(s, overload, 10u);
}

void mx_tx_status(mx_serial *s, uint32_t status) {
  if (status == MX_OK) {
    mx_tx_u16(s, MX_OK);
  } else {
    mx_tx_error(s, status, -1, NULL, NULL);
  }
}

void mx_tx_end(mx_serial *s) {
  for (int i = 0; i < 32; i += 8) mx_slip_put(s->cfg.io, (uint8_t)(s->tx_crc >> i));
  s->cfg.io->putc(s->cfg.io->ctx, MX_SLIP_END);
  if (s->cfg.io->flush != NULL) s->cfg.io->flush(s->cfg.io->ctx);
}

static void nak(mx_serial *s, uint16_t seq, uint16_t reason) {
  mx_tx_begin(s, 0, MX_SERIAL_FLAG_RESPONSE | MX_SERIAL_FLAG_NAK, seq);   /* command unknown: 0 */
  /* tx_put would overwrite the replay buffer: a NAK must not disturb the last response's replay */
  const uint8_t body[2] = {(uint8_t)reason, (uint8_t)(reason >> 8)};
  tx_raw(s, body, 2);
  mx_tx_end(s);
}

static void cmd_reset(mx_serial *s, const uint8_t *body, uint32_t len) {
  (void)body;
  (void)len;
  mx_tx_u16(s, MX_OK);   /* acts after the response is out (frame_done) */
}

static const mx_cmd_fn handlers[MX_CMD_COUNT] = {
    mx_cmd_info,      mx_cmd_model,  mx_cmd_load_begin, mx_cmd_load_chunk, mx_cmd_load_end,
    mx_cmd_set_input, mx_cmd_invoke, mx_cmd_get_output, mx_cmd_profile,    cmd_reset,
};

/* Body length per command, checked here once: exact, or with AT_LEAST a minimum (then data follows). */
#define AT_LEAST 0x80u
static const uint8_t body_len[MX_CMD_COUNT] = {
    AT_LEAST, AT_LEAST, 8, AT_LEAST | 4, 0, AT_LEAST | 6, 0, 8, 4, AT_LEAST,
};

static void dispatch(mx_serial *s, uint8_t cmd, const uint8_t *body, uint32_t len) {
  const uint32_t i = cmd - 1u;
  if (i >= MX_CMD_COUNT) {
    mx_tx_status(s, MX_SERIAL_BAD_COMMAND);
  } else if (body_len[i] & AT_LEAST ? len < (body_len[i] & 0x7Fu) : len != body_len[i]) {
    mx_tx_status(s, MX_SERIAL_BAD_REQUEST);
  } else {
    handlers[i](s, body, len);
  }
}

static void frame_done(mx_serial *s) {
  const uint32_t n = s->rx_len;
  const uint16_t seq = n >= 4 ? mx_rd16(&s->rx[2]) : 0;
  const uint16_t bad = s->rx_overflow                                        ? MX_SERIAL_TOO_LARGE
                       : n < 8                                               ? MX_SERIAL_TOO_SHORT
                       : mx_crc32(0, s->rx, n - 4) != mx_rd32(&s->rx[n - 4]) ? MX_SERIAL_BAD_CRC
                                                                             : 0;
  if (bad) {
    nak(s, seq, bad);
    return;
  }
  const uint8_t cmd = s->rx[0];
  const uint32_t crc = mx_rd32(&s->rx[n - 4]);
  if (s->rx[1] & MX_SERIAL_FLAG_RESPONSE) return;   /* our own echo on a loopback: not a request */
  /* The same CRC with the same sequence is the same request: command and body included. */
  const int replay = s->replay_valid && seq == s->replay_seq && crc == s->replay_request_crc &&
                     s->replay_len <= MX_SERIAL_REPLAY_BYTES;
  mx_tx_begin(s, cmd, MX_SERIAL_FLAG_RESPONSE, seq);
  if (replay) {
    mx_tx_put(s, s->replay, s->replay_len);
  } else {
    /* a new request, or a repeated read-only one whose long response is recomputed */
    dispatch(s, cmd, &s->rx[4], n - 8);
    s->replay_valid = 1;
    s->replay_seq = seq;
    s->replay_request_crc = crc;
    s->replay_len = (uint8_t)(s->tx_body_len <= MX_SERIAL_REPLAY_BYTES ? s->tx_body_len : 0xFFu);
  }
  mx_tx_end(s);
  if (cmd == MX_CMD_RESET && !replay) mx_serial_boot(s);   /* as after a power-up; the replay record stays */
}

void mx_serial_byte(mx_serial *s, uint8_t byte) {
  if (mx_slip_take(s, byte)) {
    frame_done(s);
    s->rx_len = 0;
    s->rx_overflow = 0;
  }
}

void mx_serial_run(mx_serial *s) {
  for (;;) {
    const int c = s->cfg.io->getc(s->cfg.io->ctx);
    if (c < 0) return;
    mx_serial_byte(s, (uint8_t)c);
  }
}
