/* MxTestDelegate: a delegate backend for testing the delegate path on the host (linked into mx_run).
 *
 * Processed blob, little-endian, nothing after the operands:
 *   bytes 0..3  magic "MXTD"
 *   bytes 4..7  u32 opcode
 *   opcode 1 (relu):   no operands                     out = max(in, 0)
 *   opcode 2 (affine): f32 a, f32 b (bytes 8..15)       out = in * a + b
 * A DelegateCall passes (in, out): two float32 tensors of one shape and dim order.
 * A bad magic, opcode or length is refused at init (MX_ERR_BAD_DELEGATE_DATA). */
#include <string.h>

#include "mx/backend.h"

enum { OP_RELU = 1, OP_AFFINE = 2 };

/* Fixed-width fields only: state_bytes is the same on every target (mx/backend.h). */
typedef struct test_state {
  uint32_t opcode;
  float a, b;
} test_state;

static uint32_t load_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static float load_f32(const uint8_t *p) {
  uint32_t bits = load_u32(p);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static mx_error init(const uint8_t *processed, uint32_t size, void *state) {
  test_state *s = state;
  if (size < 8 || memcmp(processed, "MXTD", 4) != 0) return MX_ERR_BAD_DELEGATE_DATA;
  s->opcode = load_u32(processed + 4);
  if (s->opcode == OP_RELU && size == 8) return MX_OK;
  if (s->opcode != OP_AFFINE || size != 16) return MX_ERR_BAD_DELEGATE_DATA;
  s->a = load_f32(processed + 8);
  s->b = load_f32(processed + 12);
  return MX_OK;
}

static mx_error check_pair(const mx_tensor *in, const mx_tensor *out) {
  if (in->dtype != MX_DTYPE_F32 || out->dtype != MX_DTYPE_F32) return MX_ERR_BAD_DTYPE;
  if (in->dim != out->dim || in->numel != out->numel) return MX_ERR_BAD_SHAPE;
  for (uint32_t d = 0; d < in->dim; d++) {
    if (in->sizes[d] != out->sizes[d] || in->dim_order[d] != out->dim_order[d]) return MX_ERR_BAD_SHAPE;
  }
  if (in->numel != 0 && (in->data == NULL || out->data == NULL)) return MX_ERR_BAD_ARG_VALUE;
  return MX_OK;
}

/* Runs a call check() accepted at load. */
static mx_error execute(void *state, mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  const test_state *s = state;
  (void)ctx;
  (void)nargs;
  const mx_tensor *in = args[0]->u.t, *out = args[1]->u.t;
  const float *x = in->data;
  float *y = out->data;
  for (uint32_t i = 0; i < in->numel; i++) {
    y[i] = s->opcode == OP_RELU ? (x[i] < 0.0f ? 0.0f : x[i]) : x[i] * s->a + s->b;
  }
  return MX_OK;
}

/* At load: the call's form, and an out the loader lets be written (planned). */
static mx_arg_error check(const void *state, mx_value *const *args, uint32_t nargs) {
  (void)state;
  if (nargs != 2) return MX_ERR_BAD_ARG_COUNT;
  if (args[0]->tag != MX_TAG_TENSOR || args[1]->tag != MX_TAG_TENSOR) return MX_ERR_BAD_ARG_TYPE;
  const mx_tensor *out = args[1]->u.t;
  if (mx_tensor_nbytes(out) != 0 && (out->flags & MX_TENSOR_PLANNED) == 0)
    return MX_ARG_ERROR(1, MX_ERR_CONSTANT_WRITE);
  return check_pair(args[0]->u.t, out);
}

const mx_backend mx_test_delegate_backend = {"MxTestDelegate", sizeof(test_state), init, execute, check};
