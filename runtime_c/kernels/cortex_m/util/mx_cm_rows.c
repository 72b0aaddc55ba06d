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

/* Group g of the rows' calls (k output rows each, `groups` per batch), batch by batch, as a call on tensors at 0: its
 * dims and padding, and its input's and out's byte offsets from the tensors' starts (at[0], at[1]). Inlined: the
 * kernels call it per group. */
static void group_at(const mx_cm_rows *r, int32_t k, int32_t groups, int32_t g, mx_cm_rows_call *call, int64_t at[2]) {
  const int32_t n = g / groups, oy = (g % groups) * k, rows = oy + k < r->out.h ? k : r->out.h - oy;
  int32_t first, count, pad;
  slice(r, oy, rows, &first, &count, &pad);
  call->in_dims = (cmsis_nn_dims){1, count, r->in.w, r->in.c};
  call->out_dims = (cmsis_nn_dims){1, rows, r->out.w, r->out.c};
  call->pad = pad;
  at[0] = ((int64_t)n * r->in.h + first) * r->in.w * r->in.c;
  at[1] = ((int64_t)n * r->out.h + oy) * r->out.w * r->out.c;
}

static bool apart(const mx_cm_rows *r, const int8_t *in, const int8_t *out) {
  const int64_t in_bytes = (int64_t)r->in.n * r->in.h * r->in.w * r->in.c;
  const int64_t out_bytes = (int64_t)r->out.n * r->out.h * r->out.w * r->out.c;
  return (uintptr_t)out >= (uintptr_t)in + (uintptr_t)in_bytes ||
         (uintptr_t)in >= (uintptr_t)out + (uintptr_t)out_bytes;
}

int32_t mx_cm_rows_calls(mx_cm_rows *r, const int8_t *in, const int8_t *out) {
  r->groups = 0;
  if (apart(r, in, out)) return 1;
  r->group = group_rows(r);
  r->groups = (r->out.h + r->group - 1) / r->group;
  return r->out.n * r->groups;
}

void mx_cm_rows_call_at(const mx_cm_rows *r, const int8_t *in, int8_t *out, int32_t i, mx_cm_rows_call *call) {
  if (r->groups == 0) {
    *call = (mx_cm_rows_call){r->in, r->out, in, out, r->pad};
    return;
  }
  const int32_t g =
      (uintptr_t)out <= (uintptr_t)in ? i : r->out.n * r->groups - 1 - i; /* forward below, backward above */
  int64_t at[2];
  group_at(r, r->group, r->groups, g, call, at);
  call->in = in + at[0];
  call->out = out + at[1];
}

/* Forward, a group writes up to the end of its last output row while the input from the start of its first input
 * row on is still to be read; backward, it writes from the start of its first output row while the input up to
 * the end of its last input row still is. An out at `out` may overlap an input at `in` when it lies at least the
 * largest forward gap below (rows forward), or the largest backward gap above (rows backward). */
bool mx_cm_rows_overlap(const mx_cm_rows *r, uint32_t arg, const void *in, const void *out,
                        bool (*same)(const void *op, const mx_cm_rows *r, int32_t pad, int32_t rows), const void *op) {
  if (arg != 0 || r->out.n * r->out.h * r->out.w * r->out.c == 0) return false;
  const int64_t in_row = (int64_t)r->in.w * r->in.c, out_row = (int64_t)r->out.w * r->out.c;
  const int32_t k = group_rows(r), groups = (r->out.h + k - 1) / k;
  int64_t fwd = INT64_MIN, bwd = INT64_MIN;
  for (int32_t g = 0; g < r->out.n * groups; g++) {
    mx_cm_rows_call c;
    int64_t at[2];
    group_at(r, k, groups, g, &c, at);
    const int64_t below = at[1] + c.out_dims.h * out_row - at[0], above = at[0] + c.in_dims.h * in_row - at[1];
    if (below > fwd) fwd = below;
    if (above > bwd) bwd = above;
    if (same != NULL && !same(op, r, c.pad, c.in_dims.h)) return false;
  }
  const intptr_t delta = (intptr_t)in - (intptr_t)out; /* > 0: the out starts below the input */
  return (delta >= 0 && (int64_t)delta >= fwd) || (delta <= 0 && -(int64_t)delta >= bwd);
}
