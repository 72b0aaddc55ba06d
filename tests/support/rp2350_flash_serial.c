/* The serial protocol (runtime_c/serial/) over the Pico 2's flash slot store, on a host: the real device code, the
 * real runtime and a kernel table, boards/rp2350/slot_store_flash.c and the fake ROM and flash of
 * rp2350_fake_flash.c (tests/test_pico2_flash_slots.py). Frames are fed byte by byte as a UART would; a "reboot" is
 * a fresh mx_serial initialised over the same flash. Prints one line per step.
 *
 *   rp2350_flash_serial A.pte B.pte */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_rom.h"
#include "mx_serial.h"
#include "serial_internal.h"

void mx_slot_store_open(mx_slot_store *store, uint8_t *ram, uint32_t slot_bytes);

static uint8_t out[1u << 16]; /* what the device sent since the last request */
static uint32_t out_len;
static uint16_t seq = 100;
static uint8_t work[256u * 1024u] __attribute__((aligned(16)));

static int no_getc(void *ctx) {
  (void)ctx;
  return -1;
}
static void put(void *ctx, uint8_t c) {
  (void)ctx;
  if (out_len < sizeof out) out[out_len++] = c;
}
static uint64_t ticks(void *ctx) {
  (void)ctx;
  static uint64_t t;
  return t += 1000u;
}

static void send_byte(mx_serial *s, uint8_t b) {
  if (b == MX_SLIP_END || b == MX_SLIP_ESC) {
    mx_serial_byte(s, MX_SLIP_ESC);
    b = b == MX_SLIP_END ? MX_SLIP_ESC_END : MX_SLIP_ESC_ESC;
  }
  mx_serial_byte(s, b);
}

/* Sends one request and returns the response's status (0xFFFF: no well-formed response); body_out gets the
 * response body after the status. */
static uint32_t request(mx_serial *s, uint8_t cmd, const uint8_t *body, uint32_t len, uint8_t *body_out) {
  uint8_t head[4] = {cmd, 0, (uint8_t)seq, (uint8_t)(seq >> 8)};
  seq++;
  uint32_t crc = mx_crc32(mx_crc32(0, head, 4), body, len);
  out_len = 0;
  mx_serial_byte(s, MX_SLIP_END);
  for (int i = 0; i < 4; i++) send_byte(s, head[i]);
  for (uint32_t i = 0; i < len; i++) send_byte(s, body[i]);
  for (int i = 0; i < 4; i++) send_byte(s, (uint8_t)(crc >> (8 * i)));
  mx_serial_byte(s, MX_SLIP_END);
  static uint8_t frame[sizeof out];
  uint32_t n = 0;
  for (uint32_t i = 0; i < out_len; i++) { /* SLIP-decode the response (the ENDs around it are dropped) */
    uint8_t c = out[i];
    if (c == MX_SLIP_END) continue;
    if (c == MX_SLIP_ESC) c = out[++i] == MX_SLIP_ESC_END ? MX_SLIP_END : MX_SLIP_ESC;
    frame[n++] = c;
  }
  if (n < 10) return 0xFFFFu;
  const uint32_t got = (uint32_t)frame[n - 4] | (uint32_t)frame[n - 3] << 8 | (uint32_t)frame[n - 2] << 16 |
                       (uint32_t)frame[n - 1] << 24;
  if (!(frame[1] & MX_SERIAL_FLAG_RESPONSE) || mx_crc32(0, frame, n - 4) != got) return 0xFFFFu;
  if (body_out) memcpy(body_out, frame + 6, n - 10);
  return (uint32_t)frame[4] | (uint32_t)frame[5] << 8;
}

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* LOAD_BEGIN, the chunks up to `stop` bytes (a cut transfer when stop < size), LOAD_END when complete. */
static void load(mx_serial *s, const char *name, const uint8_t *image, uint32_t size, uint32_t stop) {
  uint8_t body[512], reply[64];
  put_u32(body, size);
  put_u32(body + 4, mx_crc32(0, image, size));
  uint32_t status = request(s, MX_CMD_LOAD_BEGIN, body, 8, reply);
  printf("%s begin %u slot %u\n", name, status, reply[0]);
  for (uint32_t off = 0; off < stop; off += 496u) {
    const uint32_t n = size - off < 496u ? size - off : 496u;
    put_u32(body, off);
    memcpy(body + 4, image + off, n);
    if ((status = request(s, MX_CMD_LOAD_CHUNK, body, 4 + n, NULL)) != 0) break;
  }
  if (stop < size) {
    printf("%s cut after %u bytes\n", name, stop);
    return;
  }
  status = request(s, MX_CMD_LOAD_END, NULL, 0, reply);
  printf("%s end %#x slot %u\n", name, status, status == 0 ? reply[0] : 0xFFu);
}

static uint32_t read_file(const char *path, uint8_t *buf, uint32_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) exit(2);
  uint32_t n = (uint32_t)fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

static void boot(mx_serial *s, const mx_slot_store *store, const char *when) {
  static const mx_serial_io io = {0, no_getc, put, 0, ticks};
  const mx_serial_config cfg = {&io, store, work, sizeof work, "pico2", "test"};
  memset(s, 0, sizeof *s);
  mx_serial_init(s, &cfg);
  printf("%s active %d\n", when, s->active);
}

int main(int argc, char **argv) {
  static uint8_t a[65536], b[65536], junk[4096];
  if (argc < 3) return 2;
  const uint32_t a_len = read_file(argv[1], a, sizeof a), b_len = read_file(argv[2], b, sizeof b);
  for (uint32_t i = 0; i < sizeof junk; i++) junk[i] = (uint8_t)(i * 7u + 3u); /* CRC checks, does not load */
  memset(mx_fake_flash, 0xFF, sizeof mx_fake_flash);                           /* a new chip: all erased */
  mx_fake_verbose = 0;
  static mx_slot_store store;
  static mx_serial s;
  mx_slot_store_open(&store, NULL, 0);
  boot(&s, &store, "new");
  load(&s, "A", a, a_len, a_len);
  boot(&s, &store, "reboot");
  load(&s, "B", b, b_len, b_len / 2);
  boot(&s, &store, "power cut");
  load(&s, "junk", junk, sizeof junk, sizeof junk);
  boot(&s, &store, "reboot");
  load(&s, "B", b, b_len, b_len);
  boot(&s, &store, "reboot");
  /* B (a reshape of 16 floats) runs from its slot in the "flash": its output bytes are its input bytes. */
  uint8_t set_body[6 + 64] = {0}, get_body[8] = {0}, output[64 + 16];
  for (uint32_t i = 0; i < 64; i++) set_body[6 + i] = (uint8_t)(i * 13u + 1u);
  get_body[6] = 64; /* input/output 0, offset 0, 64 bytes */
  const uint32_t set = request(&s, MX_CMD_SET_INPUT, set_body, sizeof set_body, NULL);
  const uint32_t run = request(&s, MX_CMD_INVOKE, NULL, 0, NULL);
  const uint32_t get = request(&s, MX_CMD_GET_OUTPUT, get_body, sizeof get_body, output);
  printf("set %u invoke %u get %u output equals input %d\n", set, run, get, memcmp(output, set_body + 6, 64) == 0);
  printf("irq %d\n", mx_fake_irq_enabled);
  return 0;
}
