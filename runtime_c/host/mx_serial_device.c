/* mx_serial_device: the serial protocol's device side (runtime_c/serial/) on a host, with the real runtime
 * and kernels, talking over a terminal or any file descriptor. It stands in for a board in the tests
 * (tests/test_serial_device.py runs it on a pty) and behaves as the firmware does: the model slots live in a
 * file, so they survive a restart as flash does.
 *
 *   mx_serial_device (--port PATH | --fd N) --slots FILE [--slot-bytes N] [--work-bytes N] [--board NAME]
 *
 * It serves until the other end closes the link. Errors: one line "mx_serial_device: error: ..." on stderr,
 * exit 2. */
#define _DEFAULT_SOURCE   /* cfmakeraw, pread/pwrite under -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "mx_serial.h"

typedef struct serial_link {
  int fd;
  uint8_t in[256];
  size_t in_len, in_pos;
  uint8_t out[4096];
  size_t out_len;
} serial_link;

typedef struct slots {
  int fd;
  uint32_t slot_bytes;
  uint8_t *ram;   /* both slots, 16-byte aligned: map() hands out pointers into it */
} slots;

static mx_serial *profiled;   /* the runtime's op hooks have no context argument */

void mx_platform_op_begin(uint32_t instruction) { mx_serial_op_begin(profiled, instruction); }
void mx_platform_op_end(uint32_t instruction, mx_error status) {
  (void)status;
  mx_serial_op_end(profiled, instruction);
}

static int link_getc(void *ctx) {
  serial_link *l = ctx;
  if (l->in_pos == l->in_len) {
    ssize_t n;
    do {
      n = read(l->fd, l->in, sizeof l->in);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return -1;   /* EOF, or EIO once the other side of a pty has gone */
    l->in_len = (size_t)n;
    l->in_pos = 0;
  }
  return l->in[l->in_pos++];
}

static void link_flush(void *ctx) {
  serial_link *l = ctx;
  size_t done = 0;
  while (done < l->out_len) {
    ssize_t n = write(l->fd, l->out + done, l->out_len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;   /* the link is gone; the next read ends the loop */
    done += (size_t)n;
  }
  l->out_len = 0;
}

static void link_putc(void *ctx, uint8_t c) {
  serial_link *l = ctx;
  if (l->out_len == sizeof l->out) link_flush(l);
  l->out[l->out_len++] = c;
}

static uint64_t host_ticks(void *ctx) {
  (void)ctx;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;   /* nanoseconds */
}

/* Every change goes to the file at once, so a killed process leaves what a power cut leaves in flash. */
static int persist(slots *st, uint32_t slot, uint32_t offset, uint32_t len) {
  const off_t at = (off_t)slot * st->slot_bytes + offset;
  const uint8_t *p = st->ram + at;
  while (len > 0) {
    ssize_t n = pwrite(st->fd, p, len, p - st->ram);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (uint32_t)n;
  }
  return 0;
}

static int slots_erase(void *ctx, uint32_t slot) {
  slots *st = ctx;
  if (slot > 1) return -1;
  memset(st->ram + (size_t)slot * st->slot_bytes, 0xFF, st->slot_bytes);
  return persist(st, slot, 0, st->slot_bytes);
}

static int slots_write(void *ctx, uint32_t slot, uint32_t offset, const void *data, uint32_t len) {
  slots *st = ctx;
  if (slot > 1 || offset > st->slot_bytes || len > st->slot_bytes - offset) return -1;
  memcpy(st->ram + (size_t)slot * st->slot_bytes + offset, data, len);
  return persist(st, slot, offset, len);
}

static const uint8_t *slots_map(void *ctx, uint32_t slot) {
  slots *st = ctx;
  return st->ram + (size_t)(slot & 1u) * st->slot_bytes;
}

static int fail(const char *what, const char *detail) {
  fprintf(stderr, "mx_serial_device: error: %s %s\n", what, detail ? detail : "");
  return 2;
}

static int open_slots(slots *st, const char *path, uint32_t slot_bytes) {
  const size_t total = 2u * (size_t)slot_bytes;
  st->slot_bytes = slot_bytes;
  st->ram = aligned_alloc(16, total);
  st->fd = open(path, O_RDWR | O_CREAT, 0644);
  if (st->ram == NULL || st->fd < 0) return -1;
  memset(st->ram, 0xFF, total);   /* a fresh file reads as erased flash */
  ssize_t got = pread(st->fd, st->ram, total, 0);
  if (got < 0) return -1;
  if ((size_t)got < total) return persist(st, 0, 0, (uint32_t)total);
  return 0;
}

static void make_raw(int fd) {
  struct termios t;
  if (tcgetattr(fd, &t) != 0) return;   /* not a terminal (a pipe, a socket): nothing to set */
  cfmakeraw(&t);
  tcsetattr(fd, TCSANOW, &t);
}

int main(int argc, char **argv) {
  const char *port = NULL, *slot_path = NULL, *board = "host";
  int fd = -1;
  uint32_t slot_bytes = 256u * 1024u, work_bytes = 256u * 1024u;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL) return fail("missing value after", a);
    if (strcmp(a, "--port") == 0) {
      port = v;
    } else if (strcmp(a, "--fd") == 0) {
      fd = atoi(v);
    } else if (strcmp(a, "--slots") == 0) {
      slot_path = v;
    } else if (strcmp(a, "--slot-bytes") == 0) {
      slot_bytes = (uint32_t)strtoul(v, NULL, 0);
    } else if (strcmp(a, "--work-bytes") == 0) {
      work_bytes = (uint32_t)strtoul(v, NULL, 0);
    } else if (strcmp(a, "--board") == 0) {
      board = v;
    } else {
      return fail("unexpected argument", a);
    }
    i++;
  }
  if ((port == NULL) == (fd < 0) || slot_path == NULL) {
    return fail("usage:", "mx_serial_device (--port PATH | --fd N) --slots FILE [--slot-bytes N] [--work-bytes N]");
  }
  if (slot_bytes < 2 * MX_SERIAL_SLOT_HEADER || slot_bytes % 16u != 0) return fail("bad --slot-bytes", NULL);
  if (port != NULL) fd = open(port, O_RDWR | O_NOCTTY);
  if (fd < 0) return fail("cannot open", port);
  make_raw(fd);

  static slots store_state;
  if (open_slots(&store_state, slot_path, slot_bytes) != 0) return fail("cannot use slot file", slot_path);
  uint8_t *work = aligned_alloc(16, (work_bytes + 15u) & ~15u);
  if (work == NULL) return fail("out of memory for the work area", NULL);

  static serial_link io_state;
  io_state.fd = fd;
  const mx_serial_io io = {&io_state, link_getc, link_putc, link_flush, host_ticks};
  const mx_slot_store store = {&store_state, slot_bytes, slots_erase, slots_write, slots_map};
  /* a model that a host would run for minutes is refused at load, as the firmware refuses it */
  const mx_serial_config cfg = {&io, &store, work, work_bytes, board, "mx_serial_device 1", 10000000000ull};
  static mx_serial device;
  profiled = &device;
  mx_serial_init(&device, &cfg);
  mx_serial_run(&device);
  return 0;
}
