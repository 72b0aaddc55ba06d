#include "mx_pool2d.h"

#include "mx_args.h"
#include "mx_tensor_util.h"

mx_error mx_int_pair(mx_int_list l, const int64_t *dflt, int64_t out[2]) {
  if (l.len == 0 && dflt != NULL) {
    l = (mx_int_list){dflt, 2};
  }
  if (l.len == 1) {
    out[0] = out[1] = l.items[0];
  } else if (l.len == 2) {
    out[0] = l.items[0];
    out[1] = l.items[1];
  } else {
    return MX_ERR_BAD_ARG_VALUE;
  }
  return MX_OK;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t o = floor_div(in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  /* torch: the last window must start inside the input or its left padding */
  if (ceil_mode && (o - 1) * s >= in + p) {
    --o;
  }
  return o;
}

mx_error mx_pool2d_geometry(mx_pool2d *g, const mx_tensor *in, const mx_tensor *out, bool ceil_mode,
                            mx_pool2d_part *bad) {
  for (int i = 0; i < 2; ++i) {
    /* the upper bound keeps every window index within int32 */
    *bad = g->k[i] <= 0 || g->k[i] > (1 << 20)    ? MX_POOL2D_KERNEL
           : g->s[i] <= 0 || g->s[i] > (1 << 20)  ? MX_POOL2D_STRIDE
           : g->d[i] <= 0 || g->d[i] > (1 << 20)  ? MX_POOL2D_DILATION
           : g->p[i] < 0 || g->p[i] > g->k[i] / 2 ? MX_POOL2D_PADDING
                                                  : MX_POOL2D_SHAPE;
    if (*bad != MX_POOL2D_SHAPE) {
      return MX_ERR_BAD_ARG_VALUE;
    }
  }
  if (in->dim != 3 && in->dim != 4) {
    return MX_ERR_BAD_SHAPE;
  }
  uint32_t r = in->dim;
  g->planes = mx_size_prod(in->sizes, 0, r - 2);
  g->in_h = in->sizes[r - 2];
  g->in_w = in->sizes[r - 1];
  if (g->in_h == 0 || g->in_w == 0) {
    return MX_ERR_BAD_SHAPE;
  }
  g->out_h = out_size(g->in_h, g->k[0], g->s[0], g->p[0], g->d[0], ceil_mode);
  g->out_w = out_size(g->in_w, g->k[1], g->s[1], g->p[1], g->d[1], ceil_mode);
  if (g->out_h < 1 || g->out_w < 1) {
    return MX_ERR_BAD_SHAPE;
  }
  int32_t sizes[4];
  for (uint32_t i = 0; i < r - 2; ++i) {
    sizes[i] = in->sizes[i];
  }
  sizes[r - 2] = (int32_t)g->out_h;
  sizes[r - 1] = (int32_t)g->out_w;
  return mx_check_sizes(out, sizes, r);
}

void mx_pool2d_sizes(mx_pool2d *g, const mx_tensor *in, const mx_tensor *out) {
  uint32_t r = in->dim;
  g->planes = mx_size_prod(in->sizes, 0, r - 2);
  g->in_h = in->sizes[r - 2];
  g->in_w = in->sizes[r - 1];
  g->out_h = out->sizes[r - 2];
  g->out_w = out->sizes[r - 1];
}
