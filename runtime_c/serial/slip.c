/* SLIP (RFC 1055) in both directions. Sending escapes byte by byte, so the device needs no transmit buffer;
 * receiving decodes into the state's rx buffer and only remembers that a frame overflowed it (the frame is
 * then answered with a NAK, never written past the buffer). */
#include "serial_internal.h"

void mx_slip_put(const mx_serial_io *io, uint8_t byte) {
  if (byte == MX_SLIP_END) {
    io->putc(io->ctx, MX_SLIP_ESC);
    byte = MX_SLIP_ESC_END;
  } else if (byte == MX_SLIP_ESC) {
    io->putc(io->ctx, MX_SLIP_ESC);
    byte = MX_SLIP_ESC_ESC;
  }
  io->putc(io->ctx, byte);
}

int mx_slip_take(mx_serial *s, uint8_t byte) {
  if (byte == MX_SLIP_END) {
    s->rx_escaped = 0;
    /* Back-to-back ENDs (the sender opens each frame with one to flush line noise) are empty frames. */
    return s->rx_len != 0 || s->rx_overflow;
  }
  if (byte == MX_SLIP_ESC) {
    s->rx_escaped = 1;
    return 0;
  }
  if (s->rx_escaped) {
    /* RFC 1055: an ESC followed by anything else leaves that byte as it is; the CRC catches the damage. */
    s->rx_escaped = 0;
    byte = byte == MX_SLIP_ESC_END ? MX_SLIP_END : byte == MX_SLIP_ESC_ESC ? MX_SLIP_ESC : byte;
  }
  if (s->rx_len < MX_SERIAL_MAX_FRAME) {
    s->rx[s->rx_len++] = byte;
  } else {
    s->rx_overflow = 1;
  }
  return 0;
}
