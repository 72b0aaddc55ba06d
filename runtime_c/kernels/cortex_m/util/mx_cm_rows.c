/* Window ops one output row at a time (mx_cm_rows.h). Distances count bytes from the input's start to the out's. */
#include "mx_cm_rows.h"

void mx_cm_rows_slice(const mx_cm_rows *r, int32_t oy, int32_t *first, int32_t *count, int32_t *pad) {
  const int32_t top = oy * r->stride - r->pad;
  const int32_t lo = top > 0 ? top : 0, hi = top + r->span < r->in.h ? top + r->span : r->in.h;
  *first = lo;
  *count = hi > lo ? hi - lo : 0;
  *pad = lo - top;
}

/* Forward, row (n, oy) writes up to the end of its output row while the input from the start of its first row on
 * is still to be read; backward, it writes from the start of its output row while the input up to the end of its
 * last row still is. Each distance is the largest such gap over the rows. */
static void distances(const mx_cm_rows *r, int64_t *fwd, int64_t *bwd) {
  const int64_t in_row = (int64_t)r->in.w * r->in.c, out_row = (int64_t)r->out.w * r->out.c;
  *fwd = INT64_MIN;
  *bwd = INT64_MIN;
  for (int32_t n = 0; n < r->out.n; n += (r->out.n > 1 ? r->out.n - 1 : 1)) { /* linear in n: the ends */
    for (int32_t oy = 0; oy < r->out.h; oy++) {
      int32_t first, count, pad;
      mx_cm_rows_slice(r, oy, &first, &count, &pad);
      const int64_t in0 = ((int64_t)n * r->in.h + first) * in_row, in1 = in0 + (int64_t)count * in_row;
      const int64_t out0 = ((int64_t)n * r->out.h + oy) * out_row, out1 = out0 + out_row;
      if (out1 - in0 > *fwd) *fwd = out1 - in0;
      if (in1 - out0 > *bwd) *bwd = in1 - out0;
    }
  }
}

bool mx_cm_rows_fit(const mx_cm_rows *r, const void *in, const void *out) {
  int64_t fwd, bwd;
  distances(r, &fwd, &bwd);
  const intptr_t delta = (intptr_t)in - (intptr_t)out; /* > 0: the out starts below the input */
  return (delta >= 0 && (int64_t)delta >= fwd) || (delta <= 0 && -(int64_t)delta >= bwd);
}

mx_error mx_cm_rows_run(const mx_cm_rows *r, const int8_t *in, int8_t *out, mx_cm_rows_call call, const void *op) {
  const int64_t in_bytes = (int64_t)r->in.n * r->in.h * r->in.w * r->in.c;
  const int64_t out_bytes = (int64_t)r->out.n * r->out.h * r->out.w * r->out.c;
  if ((uintptr_t)out >= (uintptr_t)in + (uintptr_t)in_bytes || (uintptr_t)in >= (uintptr_t)out + (uintptr_t)out_bytes) {
    return call(op, &r->in, in, r->pad, &r->out, out);
  }
  const int32_t rows = r->out.n * r->out.h;
  const bool forward = (uintptr_t)out <= (uintptr_t)in;
  const int32_t in_row = r->in.w * r->in.c, out_row = r->out.w * r->out.c;
  const cmsis_nn_dims out_dims = {1, 1, r->out.w, r->out.c};
  for (int32_t k = 0; k < rows; k++) {
    const int32_t row = forward ? k : rows - 1 - k, n = row / r->out.h, oy = row % r->out.h;
    int32_t first, count, pad;
    mx_cm_rows_slice(r, oy, &first, &count, &pad);
    const cmsis_nn_dims in_dims = {1, count, r->in.w, r->in.c};
    MX_TRY(
        call(op, &in_dims, in + ((int64_t)n * r->in.h + first) * in_row, pad, &out_dims, out + (int64_t)row * out_row));
  }
  return MX_OK;
}

bool mx_cm_rows_overlap(const mx_cm_rows *r, uint32_t arg, const void *in, const void *out,
                        bool (*same)(const void *op, const mx_cm_rows *r, int32_t pad, int32_t rows), const void *op) {
  if (arg != 0 || r->out.n * r->out.h * r->out.w * r->out.c == 0 || !mx_cm_rows_fit(r, in, out)) return false;
  for (int32_t oy = 0; same != NULL && oy < r->out.h; oy++) {
    int32_t first, count, pad;
    mx_cm_rows_slice(r, oy, &first, &count, &pad);
    if (!same(op, r, pad, count)) return false;
  }
  return true;
}
