#ifndef MX_PORTABLE_PLANES_H
#define MX_PORTABLE_PLANES_H
/* Float32 NCHW window ops whose output plane k reads input plane k only (depthwise convolution, average pooling)
 * with their out over their input: they run plane by plane and, in a plane, output row by output row, forward when
 * the out starts below the input and backward when above, so that no row is written over input bytes that it or a
 * later row still reads. What each direction needs is a distance between the two tensors' starts (mx_planes_fits);
 * the loader checks it against the plan (the ops' overlap functions below), the planner computes the same
 * (mcu_export/ops/overlap.py, `planes`). Inside a row the order is free: a row's distance covers all of it. */
#include "mx/kernel.h"

/* The planes: N*C of them (or C), each an in_h x in_w input and an out_h x out_w output, and the window along H
 * (span: dilation * (kernel - 1) + 1). In NHWC a plane is an image and a row holds in_w (out_w) elements: the
 * row's pixels times the channels. */
typedef struct mx_planes {
  int64_t planes;
  int32_t in_h, in_w, out_h, out_w;
  int32_t stride, pad, span;
} mx_planes;

typedef enum mx_planes_order {
  MX_PLANES_APART,   /* no byte shared: the kernel's fastest order */
  MX_PLANES_FORWARD, /* the out starts below the input: planes and rows first to last */
  MX_PLANES_BACKWARD /* above it: last to first */
} mx_planes_order;

/* The order a kernel must run in with `in` and `out` where they lie (any op: tensors apart, the fastest). */
mx_planes_order mx_planes_order_of(const mx_tensor *in, const mx_tensor *out);

/* Whether an out at `out` may overlap an input at `in` (float32 elements): the forward distance below, or the
 * backward distance above. */
bool mx_planes_fits(const mx_planes *g, const void *in, const void *out);

/* The overlap rules (mx_kernel_entry.overlap) of aten::convolution.out, not transposed: NCHW, a depthwise one
 * (groups = in channels = out channels, not the 1x1 path, a matrix product); NHWC in and out, any (run row by row,
 * every channel); and of aten::avg_pool2d.out: the input is argument 0 and the out fits. */
bool mx_planes_convolution_overlap(mx_value *const *args, uint32_t arg, uint32_t out);
bool mx_planes_avg_pool2d_overlap(mx_value *const *args, uint32_t arg, uint32_t out);

#endif
