/* Window ops a few output rows at a time (mx_cm_rows.h). Distances count bytes from the input's start to the out's. */
#include "mx_cm_rows.h"

/* Output rows per call: enough for 16 pixels, a multiple of 4 (an MVE pass), at most 4 rows (at most out.h). */
static int32_t group_rows(const mx_cm_rows *r) {
  int32_t k = 1;
  while (k < 4 && (k * r->out.w < 16 || (k * r->out.w) % 4 != 0)) k++;
  return k < r->out.h ? k : (r->out.h > 0 ? r->out.h : 1);
}

/* The input rows [*first, *first + *count) output rows [oy, oy + rows) read, and how many of the first window's
 * rows lie above them. */
static void slice(const mx_cm_rows *r, int32_t oy, int32_t rows, int32_t *first, int32_t *count, int32_t *pad) {
  const int32_t top = oy * r->stride - r->pad, bottom = (oy + rows - 1) * r->stride - r->pad + r->span;
  const int32_t lo = top > 0 ? top : 0, hi = bottom < r->in.h ? bottom : r->in.h;
  *first = lo;
  *count = hi > lo ? hi - lo : 0;
  *pad = lo - top;
}

/* Forward, a group writes up to the end of its last output row while the input from the start of its first input
 * row on is still to be read; backward, it writes from the start of its first output row while the input up to
 * the end of its last input row still is. Each distance is the largest such gap over the groups. */
static void distances(const mx_cm_rows *r, int64_t *fwd, int64_t *bwd) {
  const int64_t in_row = (int64_t)r->in.w * r->in.c, out_row = (int64_t)r->out.w * r->out.c;
  const int32_t k = group_rows(r);
  *fwd = INT64_MIN;
  *bwd = INT64_MIN;
  for (int32_t n = 0; n < r->out.n; n += (r->out.n > 1 ? r->out.n - 1 : 1)) { /* linear in n: the ends */
    for (int32_t oy = 0; oy < r->out.h; oy += k) {
      const int32_t rows = oy + k < r->out.h ? k : r->out.h - oy;
      int32_t first, count, pad;
      slice(r, oy, rows, &first, &count, &pad);
      const int64_t in0 = ((int64_t)n * r->in.h + first) * in_row, in1 = in0 + (int64_t)count * in_row;
      const int64_t out0 = ((int64_t)n * r->out.h + oy) * out_row, out1 = out0 + (int64_t)rows * out_row;
      if (out1 - in0 > *fwd) *fwd = out1 - in0;
      if (in1 - out0 > *bwd) *bwd = in1 - out0;
    }
  }
}

/* Whether an out at `out` may overlap an input at `in`: rows forward with the out at least the forward distance
 * below, or backward at least the backward distance above. */
static bool fits(const mx_cm_rows *r, const void *in, const void *out) {
  int64_t fwd, bwd;
  distances(r, &fwd, &bwd);
  const intptr_t delta = (intptr_t)in - (intptr_t)out; /* > 0: the out starts below the input */
  return (delta >= 0 && (int64_t)delta >= fwd) || (delta <= 0 && -(int64_t)delta >= bwd);
}

static bool apart(const mx_cm_rows *r, const int8_t *in, const int8_t *out) {
  const int64_t in_bytes = (int64_t)r->in.n * r->in.h * r->in.w * r->in.c;
  const int64_t out_bytes = (int64_t)r->out.n * r->out.h * r->out.w * r->out.c;
  return (uintptr_t)out >= (uintptr_t)in + (uintptr_t)in_bytes ||
         (uintptr_t)in >= (uintptr_t)out + (uintptr_t)out_bytes;
}

int32_t mx_cm_rows_calls(const mx_cm_rows *r, const int8_t *in, const int8_t *out) {
  if (apart(r, in, out)) return 1;
  const int32_t k = group_rows(r);
  return r->out.n * ((r->out.h + k - 1) / k);
}

void mx_cm_rows_call_at(const mx_cm_rows *r, const int8_t *in, int8_t *out, int32_t i, mx_cm_rows_call *call) {
  if (apart(r, in, out)) {
    *call = (mx_cm_rows_call){r->in, r->out, in, out, r->pad};
    return;
  }
  const int32_t k = group_rows(r), groups = (r->out.h + k - 1) / k, total = r->out.n * groups;
  const int32_t g = (uintptr_t)out <= (uintptr_t)in ? i : total - 1 - i; /* forward below, backward above */
  const int32_t n = g / groups, oy = (g % groups) * k, rows = oy + k < r->out.h ? k : r->out.h - oy;
  int32_t first, count, pad;
  slice(r, oy, rows, &first, &count, &pad);
  call->in_dims = (cmsis_nn_dims){1, count, r->in.w, r->in.c};
  call->out_dims = (cmsis_nn_dims){1, rows, r->out.w, r->out.c};
  call->in = in + ((int64_t)n * r->in.h + first) * r->in.w * r->in.c;
  call->out = out + ((int64_t)n * r->out.h + oy) * r->out.w * r->out.c;
  call->pad = pad;
}

bool mx_cm_rows_overlap(const mx_cm_rows *r, uint32_t arg, const void *in, const void *out,
                        bool (*same)(const void *op, const mx_cm_rows *r, int32_t pad, int32_t rows), const void *op) {
  if (arg != 0 || r->out.n * r->out.h * r->out.w * r->out.c == 0 || !fits(r, in, out)) return false;
  const int32_t k = group_rows(r);
  for (int32_t oy = 0; same != NULL && oy < r->out.h; oy += k) {
    int32_t first, count, pad;
    slice(r, oy, oy + k < r->out.h ? k : r->out.h - oy, &first, &count, &pad);
    if (!same(op, r, pad, count)) return false;
  }
  return true;
}
