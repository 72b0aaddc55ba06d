/* EthosUBackend (ethosu_backend.h): the blob parsed and checked at load, the job run by the driver. */
#include "ethosu_backend.h"

#include <stdint.h>
#include <string.h>

#include "ethosu_regs.h"

#define ALIGN 16u              /* the driver's: command words and every region base */
#define HEADER_BYTES 32u       /* name[16], u32 length, u8 external, 11 reserved */
#define NAME_BYTES 16u
#define RECORD_BYTES 36u       /* nine i32: shape[6], elem_size, offset, region */
#define SCRATCH_REGION 1       /* Vela's region of the scratch, where every input and output lives */
#define PAYLOAD_TAG 0x31504F43u /* "COP1" */
#define ACTION_OPTIMIZER_CONFIG 1u
#define ACTION_COMMAND_STREAM 2u
#define ACTION_NOP 5u

enum { B_BIN_STREAM, B_CMD, B_WEIGHT, B_SCRATCH, B_INPUTS, B_OUTPUTS, B_END, BLOCK_COUNT };
static const char *const block_names[BLOCK_COUNT] = {
    "vela_bin_stream", "cmd_data", "weight_data", "scratch_size", "inputs", "outputs", "vela_end_stream",
};

/* Fixed-width fields only, so state_bytes is the same on every target (mx/backend.h). execute does not get the
 * blob back, so the state keeps its address, as an integer, and offsets into it. */
typedef struct ethosu_state {
  uint64_t blob;                 /* the processed data's address, in place in the program */
  uint32_t cmd_at, cmd_bytes;    /* cmd_data, from the start of the blob */
  uint32_t weight_at, weight_bytes;
  uint32_t scratch_size;
  uint32_t inputs_at, outputs_at; /* the first I/O record of each block */
  uint32_t input_count, output_count;
  int32_t driver_error; /* the last run's mx_ethosu_run result (0: ok), for a debugger */
} ethosu_state;

_Static_assert(sizeof(ethosu_state) == MX_ETHOSU_STATE_BYTES, "ethosu_state must be the same size everywhere");

typedef struct io_record {
  uint32_t elem_size, offset, bytes;
} io_record;

static uint32_t u32_at(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const uint8_t *blob_of(const ethosu_state *s) { return (const uint8_t *)(uintptr_t)s->blob; }

/* An I/O record, checked: dims and element size whole (an i32 field is refused above INT32_MAX, i.e. negative),
 * region 1, the bytes within the scratch. */
static mx_error read_record(const uint8_t *rec, uint32_t scratch_size, io_record *out) {
  uint32_t elem_size = u32_at(rec + 24), offset = u32_at(rec + 28), region = u32_at(rec + 32);
  if (elem_size == 0 || elem_size > INT32_MAX || offset > INT32_MAX || region != SCRATCH_REGION)
    return MX_ERR_BAD_DELEGATE_DATA;
  uint64_t bytes = elem_size;
  for (uint32_t d = 0; d < 6; d++) {
    uint32_t dim = u32_at(rec + 4 * d);
    if (dim > INT32_MAX) return MX_ERR_BAD_DELEGATE_DATA;
    bytes *= dim;
    if (bytes > scratch_size) bytes = (uint64_t)scratch_size + 1; /* saturate: refused below, never overflows */
  }
  if (bytes > scratch_size || offset > scratch_size - bytes) return MX_ERR_BAD_DELEGATE_DATA;
  out->elem_size = elem_size;
  out->offset = offset;
  out->bytes = (uint32_t)bytes;
  return MX_OK;
}

/* An I/O block: an i32 count, then exactly that many records. */
static mx_error io_block(const uint8_t *blob, uint32_t at, uint32_t len, uint32_t scratch_size, uint32_t *first,
                         uint32_t *count) {
  if (len < 4) return MX_ERR_BAD_DELEGATE_DATA;
  uint32_t n = u32_at(blob + at); /* an i32: a negative count is a huge one here, refused alike */
  if (n > (len - 4) / RECORD_BYTES || len - 4 != n * RECORD_BYTES) return MX_ERR_BAD_DELEGATE_DATA;
  for (uint32_t i = 0; i < n; i++) {
    io_record r;
    mx_error e = read_record(blob + at + 4 + i * RECORD_BYTES, scratch_size, &r);
    if (e != MX_OK) return e;
  }
  *first = at + 4;
  *count = n;
  return MX_OK;
}

/* Vela's driver payload, as the driver parses it: "COP1", then NOP, OPTIMIZER_CONFIG (two words) and exactly
 * one COMMAND_STREAM (24-bit length in words), nothing else; the command words 16-byte aligned in memory. */
static mx_error check_payload(const uint8_t *p, uint32_t bytes) {
  if (bytes < 4 || bytes % 4 != 0 || u32_at(p) != PAYLOAD_TAG) return MX_ERR_BAD_DELEGATE_DATA;
  uint32_t n = bytes / 4, at = 1, streams = 0;
  while (at < n) {
    uint32_t w = u32_at(p + 4 * at++);
    if ((w & 0xFFu) == ACTION_NOP) continue;
    if ((w & 0xFFu) == ACTION_OPTIMIZER_CONFIG) {
      if (n - at < 2) return MX_ERR_BAD_DELEGATE_DATA;
      /* compiled for a product the driver runs. Whether it is the NPU's own product is the driver's check at
       * the first run: the NPU is not looked at before then (the platform initialises it lazily). */
      uint32_t product = MX_ETHOSU_CONFIG_PRODUCT(u32_at(p + 4 * at));
      if (product > MX_ETHOSU_PRODUCT_U85) return MX_ERR_BAD_DELEGATE_DATA;
      at += 2;
    } else if ((w & 0xFFu) == ACTION_COMMAND_STREAM) {
      uint32_t len = (w >> 16) | ((w >> 8) & 0xFFu) << 16;
      if (len == 0 || len > n - at || streams++ != 0) return MX_ERR_BAD_DELEGATE_DATA;
      if (((uintptr_t)(p + 4 * at) & (ALIGN - 1u)) != 0) return MX_ERR_MISALIGNED;
      at += len;
    } else {
      return MX_ERR_BAD_DELEGATE_DATA;
    }
  }
  return streams == 1 ? MX_OK : MX_ERR_BAD_DELEGATE_DATA;
}

/* The seven blocks, in order, each header and its data inside the blob, nothing after the last one's padding. */
static mx_error find_blocks(const uint8_t *blob, uint32_t size, uint32_t at[BLOCK_COUNT], uint32_t len[BLOCK_COUNT]) {
  uint64_t pos = 0; /* 64 bits: the padding after a block near 4 GiB must not wrap */
  for (uint32_t b = 0; b < BLOCK_COUNT; b++) {
    if (pos > size || size - pos < HEADER_BYTES) return MX_ERR_BAD_DELEGATE_DATA;
    const uint8_t *h = blob + pos;
    size_t name_len = strlen(block_names[b]);
    if (memcmp(h, block_names[b], name_len) != 0 || h[name_len] != 0) return MX_ERR_BAD_DELEGATE_DATA;
    uint32_t length = u32_at(h + NAME_BYTES);
    if (h[NAME_BYTES + 4] != 0) return MX_ERR_BAD_DELEGATE_DATA; /* external: named data, not supported */
    pos += HEADER_BYTES;
    if (length > size - pos) return MX_ERR_BAD_DELEGATE_DATA;
    at[b] = (uint32_t)pos;
    len[b] = length;
    pos += length;
    pos += (ALIGN - pos % ALIGN) % ALIGN; /* may pass `size` only after the last block: checked next round */
  }
  return pos >= size ? MX_OK : MX_ERR_BAD_DELEGATE_DATA;
}

static mx_error init(const uint8_t *processed, uint32_t size, void *state) {
  ethosu_state *s = state;
  uint32_t at[BLOCK_COUNT], len[BLOCK_COUNT];
  mx_error e = find_blocks(processed, size, at, len);
  if (e != MX_OK) return e;
  if (len[B_SCRATCH] != 4) return MX_ERR_BAD_DELEGATE_DATA;
  s->blob = (uint64_t)(uintptr_t)processed;
  s->cmd_at = at[B_CMD];
  s->cmd_bytes = len[B_CMD];
  s->weight_at = at[B_WEIGHT];
  s->weight_bytes = len[B_WEIGHT];
  s->scratch_size = u32_at(processed + at[B_SCRATCH]);
  e = check_payload(processed + s->cmd_at, s->cmd_bytes);
  if (e == MX_OK && ((uintptr_t)(processed + s->weight_at) & (ALIGN - 1u)) != 0) e = MX_ERR_MISALIGNED;
  if (e == MX_OK) e = io_block(processed, at[B_INPUTS], len[B_INPUTS], s->scratch_size, &s->inputs_at, &s->input_count);
  if (e == MX_OK)
    e = io_block(processed, at[B_OUTPUTS], len[B_OUTPUTS], s->scratch_size, &s->outputs_at, &s->output_count);
  return e;
}

/* I/O record k: inputs first, then outputs (checked at init). */
static io_record record(const ethosu_state *s, uint32_t k) {
  io_record r = {0, 0, 0};
  uint32_t at =
      k < s->input_count ? s->inputs_at + k * RECORD_BYTES : s->outputs_at + (k - s->input_count) * RECORD_BYTES;
  (void)read_record(blob_of(s) + at, s->scratch_size, &r);
  return r;
}

static mx_arg_error check(const void *state, mx_value *const *args, uint32_t nargs) {
  const ethosu_state *s = state;
  uint32_t n = s->input_count + s->output_count;
  if (nargs != n && nargs != n + 1) return MX_ERR_BAD_ARG_COUNT;
  for (uint32_t i = 0; i < nargs; i++) {
    if (args[i]->tag != MX_TAG_TENSOR) return MX_ARG_ERROR(i, MX_ERR_BAD_ARG_TYPE);
    const mx_tensor *t = args[i]->u.t;
    /* the NPU writes its outputs and the scratch: arena slots, never the program */
    if (i >= s->input_count && mx_tensor_nbytes(t) != 0 && (t->flags & MX_TENSOR_PLANNED) == 0) {
      return MX_ARG_ERROR(i, MX_ERR_CONSTANT_WRITE);
    }
    if (i == n) { /* the scratch */
      if (t->dtype != MX_DTYPE_U8) return MX_ARG_ERROR(i, MX_ERR_BAD_DTYPE);
      if (mx_tensor_nbytes(t) < s->scratch_size) return MX_ARG_ERROR(i, MX_ERR_BAD_SHAPE);
      if (t->data == NULL) return MX_ARG_ERROR(i, MX_ERR_BAD_ARG_VALUE);
      if (((uintptr_t)t->data & (ALIGN - 1u)) != 0) return MX_ARG_ERROR(i, MX_ERR_MISALIGNED);
      continue;
    }
    io_record r = record(s, i);
    if (mx_dtype_size(t->dtype) != r.elem_size) return MX_ARG_ERROR(i, MX_ERR_BAD_DTYPE);
    if (mx_tensor_nbytes(t) != r.bytes) return MX_ARG_ERROR(i, MX_ERR_BAD_SHAPE);
    if (mx_tensor_nbytes(t) != 0 && t->data == NULL) return MX_ARG_ERROR(i, MX_ERR_BAD_ARG_VALUE);
  }
  if (nargs == n && mx_ethosu_platform_scratch(s->scratch_size) == NULL) return MX_ERR_ARENA_MISSING;
  return MX_OK;
}

/* The driver's refusals of the payload are bad delegate data (init checked its form as the driver does; what
 * only the NPU can tell, a payload compiled for another product or configuration, comes here); alignment is the
 * runtime's own error; the rest is the NPU failing the job. */
static mx_error driver_error(int err) {
  switch (err) {
    case MX_ETHOSU_E_PAYLOAD_SIZE:
    case MX_ETHOSU_E_TAG:
    case MX_ETHOSU_E_TRUNCATED:
    case MX_ETHOSU_E_STREAM_LENGTH:
    case MX_ETHOSU_E_ACTION:
    case MX_ETHOSU_E_STREAM_COUNT:
    case MX_ETHOSU_E_OPT_CONFIG:
    case MX_ETHOSU_E_OPT_PRODUCT:
    case MX_ETHOSU_E_OPT_ARCH: return MX_ERR_BAD_DELEGATE_DATA;
    case MX_ETHOSU_E_ALIGN: return MX_ERR_MISALIGNED;
    default: return MX_ERR_DELEGATE_FAILED;
  }
}

static mx_error execute(void *state, mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  ethosu_state *s = state;
  const uint32_t n = s->input_count + s->output_count;
  if (nargs != n && nargs != n + 1) return MX_ERR_BAD_ARG_COUNT; /* checked at load */
  uint8_t *scratch = nargs > n ? args[n]->u.t->data : mx_ethosu_platform_scratch(s->scratch_size);
  if (scratch == NULL) return MX_ERR_ARENA_MISSING;
  for (uint32_t i = 0; i < s->input_count; i++) {
    io_record r = record(s, i);
    if (r.bytes != 0) memcpy(scratch + r.offset, args[i]->u.t->data, r.bytes);
  }
  const uint8_t *blob = blob_of(s);
  mx_ethosu_job job = {blob + s->cmd_at,
                       s->cmd_bytes,
                       {(uint8_t *)(uintptr_t)(blob + s->weight_at), scratch, NULL},
                       {s->weight_bytes, s->scratch_size, 0},
                       ctx->instruction}; /* the platform reports the job's NPU cycles by it */
  uint32_t budget = 0;
  mx_ethosu *npu = mx_ethosu_platform_begin(&job, &budget);
  uint64_t base[MX_ETHOSU_JOB_REGIONS];
  for (int r = 0; r < MX_ETHOSU_JOB_REGIONS; r++) base[r] = (uint64_t)(uintptr_t)job.base[r];
  int err = npu != NULL ? mx_ethosu_run(npu, job.cmd_data, job.cmd_bytes, base, MX_ETHOSU_JOB_REGIONS, budget)
                        : MX_ETHOSU_E_STATE;
  mx_ethosu_platform_end(&job, err);
  s->driver_error = err;
  if (err != MX_ETHOSU_OK) return driver_error(err);
  for (uint32_t k = s->input_count; k < n; k++) {
    io_record r = record(s, k);
    if (r.bytes != 0) memcpy(args[k]->u.t->data, scratch + r.offset, r.bytes);
  }
  return MX_OK;
}

const mx_backend mx_ethosu_backend = {"EthosUBackend", sizeof(ethosu_state), init, execute, check};
