#ifndef MX_SERIAL_H
#define MX_SERIAL_H
/* The device side of the serial protocol (docs/serial-protocol.md): SLIP frames with CRC-32, stop-and-wait
 * with sequence numbers, commands to load a model into one of two slots (A/B), set inputs, invoke, read
 * outputs and the per-op profile. No malloc and no globals: everything lives in one mx_serial the caller
 * owns, and the outside world is reached through two seams (bytes, slot storage), so the same code runs in
 * firmware (UART, flash or semihosting files) and in a host test binary (a pty, a file). */
#include <stdint.h>

#include "mx/runtime.h"

#define MX_SERIAL_PROTOCOL_VERSION 1u
/* Largest frame the device accepts (header + body + CRC): its receive buffer. Responses may be longer
 * (they are encoded on the fly). */
#ifndef MX_SERIAL_MAX_FRAME
#define MX_SERIAL_MAX_FRAME 512u
#endif
/* Response bodies up to this size are kept for replay; longer ones come only from read-only commands,
 * which are recomputed when their request is repeated. */
#define MX_SERIAL_REPLAY_BYTES 64u
#define MX_SERIAL_SLOT_HEADER 32u   /* bytes before the image in a slot; keeps the image 16-byte aligned */
#define MX_SERIAL_MAX_ARENAS 8u

/* Status codes (serial_errors.def); a response status is MX_OK, one of these, or a runtime mx_error. */
enum {
#define X(name, code, text) name = code,
#include "serial_errors.def"
#undef X
};

/* The byte seam: a UART in firmware (mx_platform_getc/putc), a file descriptor on a host. */
typedef struct mx_serial_io {
  void *ctx;
  int (*getc)(void *ctx);                 /* blocks; < 0 ends mx_serial_run (link closed) */
  void (*putc)(void *ctx, uint8_t c);
  void (*flush)(void *ctx);               /* after each frame sent; may be NULL */
  uint64_t (*ticks)(void *ctx);           /* a free-running clock for INVOKE and PROFILE */
} mx_serial_io;

/* The slot seam: two slots of slot_bytes each (header + image). Flash on a board (erase sets 0xFF; a write
 * only clears bits there: LOAD_CHUNKs that overlap, which our host never sends, leave an image whose CRC
 * fails), a file on a host or a simulator. map gives the slot's bytes readable in place (memory-mapped
 * flash, or a RAM copy), so the runtime runs the program where it lies; each slot starts 16-byte aligned.
 * erase/write return 0 on success. */
typedef struct mx_slot_store {
  void *ctx;
  uint32_t slot_bytes;
  int (*erase)(void *ctx, uint32_t slot);
  int (*write)(void *ctx, uint32_t slot, uint32_t offset, const void *data, uint32_t len);
  const uint8_t *(*map)(void *ctx, uint32_t slot);
} mx_slot_store;

/* What the device says about itself in INFO. */
typedef struct mx_serial_config {
  const mx_serial_io *io;
  const mx_slot_store *store;
  uint8_t *work;                          /* metadata pool, arenas and profile of the active model */
  uint32_t work_bytes;                    /* 16-byte aligned start, any size */
  const char *board;
  const char *firmware;
  uint64_t max_cost;                      /* a model whose mx_method_cost is above it is refused at load (0: none) */
} mx_serial_config;

typedef struct mx_serial {
  mx_serial_config cfg;
  /* receive: SLIP decoding into rx */
  uint16_t rx_len;
  uint8_t rx_escaped, rx_overflow;
  /* replay of the last request (see frame.c) */
  uint8_t replay_valid, replay_len;
  uint16_t replay_seq;
  uint32_t replay_request_crc;
  /* transfer in progress */
  uint8_t loading, load_slot;
  uint32_t load_size, load_crc;
  /* the active model */
  int8_t active;                          /* slot, or -1 */
  mx_program program;
  mx_method method;
  uint32_t *profile;                      /* ticks per instruction, in the work area (NULL: no room) */
  uint64_t invoke_ticks;
  uint32_t op_start;
  /* a response being sent */
  uint32_t tx_crc;
  uint32_t tx_body_len;   /* GET_OUTPUT alone can send 65,537 body bytes */
  uint8_t replay[MX_SERIAL_REPLAY_BYTES];
  uint8_t rx[MX_SERIAL_MAX_FRAME];
} mx_serial;

/* Picks the newest valid slot (valid header, image CRC, loads) and activates it. Returns MX_OK with or
 * without a model (s->active < 0 when there is none). */
void mx_serial_init(mx_serial *s, const mx_serial_config *cfg);
/* Feeds one received byte; a complete frame is executed and answered before it returns. */
void mx_serial_byte(mx_serial *s, uint8_t byte);
/* Loops on getc until it reports the link closed. */
void mx_serial_run(mx_serial *s);

/* Per-op profiling: the board's mx_platform_op_begin/end (runtime.h) call these with its mx_serial. */
void mx_serial_op_begin(mx_serial *s, uint32_t instruction);
void mx_serial_op_end(mx_serial *s, uint32_t instruction);

#endif
