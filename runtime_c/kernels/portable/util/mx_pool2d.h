#ifndef MX_PORTABLE_POOL2D_H
#define MX_PORTABLE_POOL2D_H
/* Window geometry shared by the 2-D pooling kernels: parameter lists and torch's output-size rule. */
#include "mx_args.h"

typedef struct mx_pool2d {
  uint32_t planes;          /* N*C for NCHW, C for CHW */
  int64_t in_h, in_w, out_h, out_w;
  int64_t k[2], s[2], p[2], d[2];   /* (h, w) kernel, stride, padding, dilation */
} mx_pool2d;

/* An int[2] argument: one value repeats, two are (h, w); an empty list takes dflt (NULL: an error). */
mx_error mx_int_pair(mx_int_list l, const int64_t *dflt, int64_t out[2]);

/* Fills planes/in/out sizes from the input (rank 3 or 4) once k, s, p, d are set, with torch's rules
 * (pad at most half the kernel, ceil_mode windows must start inside the padded input), and checks
 * `out` has the input's shape with H, W replaced by the output size. *bad: the parameter at fault, or
 * MX_POOL2D_SHAPE for the tensors. */
typedef enum {
  MX_POOL2D_KERNEL,
  MX_POOL2D_STRIDE,
  MX_POOL2D_PADDING,
  MX_POOL2D_DILATION,
  MX_POOL2D_SHAPE
} mx_pool2d_part;
mx_error mx_pool2d_geometry(mx_pool2d *g, const mx_tensor *in, const mx_tensor *out, bool ceil_mode,
                            mx_pool2d_part *bad);

/* Once checked: planes and in/out sizes read from the tensors. */
void mx_pool2d_sizes(mx_pool2d *g, const mx_tensor *in, const mx_tensor *out);

#endif
