#include "mx_conv_transpose2d_f32.h"

/* The input index i that output o reads through kernel tap k (o + pad - k * dil = i * stride), if one in [0, in)
 * does: a transposed convolution scatters input i to outputs i * stride - pad + k * dil, read backwards. */
static inline bool tap_input(int32_t o, int32_t k, int32_t stride, int32_t pad, int32_t dil, int32_t in, int32_t *i) {
  const int32_t at = o + pad - k * dil;
  if (at < 0 || at % stride != 0) {
    return false;
  }
  *i = at / stride;
  return *i < in;
}

void mx_conv_transpose2d_f32(const mx_conv2d_f32_shape *s, const float *x, const float *w, const float *bias,
                             float *y) {
  const int32_t cg_in = s->c_in / s->groups, cg_out = s->c_out / s->groups;
  const size_t in_plane = (size_t)s->in_h * (size_t)s->in_w, k_plane = (size_t)s->k_h * (size_t)s->k_w;
  for (int32_t oc = 0; oc < s->c_out; ++oc) {
    const int32_t g = oc / cg_out, ocg = oc % cg_out;
    for (int32_t oh = 0; oh < s->out_h; ++oh) {
      for (int32_t ow = 0; ow < s->out_w; ++ow) {
        float acc = bias != NULL ? bias[oc] : 0.0f;
        for (int32_t kh = 0; kh < s->k_h; ++kh) {
          int32_t ih;
          if (!tap_input(oh, kh, s->stride[0], s->pad[0], s->dil[0], s->in_h, &ih)) {
            continue;
          }
          for (int32_t kw = 0; kw < s->k_w; ++kw) {
            int32_t iw;
            if (!tap_input(ow, kw, s->stride[1], s->pad[1], s->dil[1], s->in_w, &iw)) {
              continue;
            }
            const float *xp = x + (size_t)(g * cg_in) * in_plane + (size_t)ih * (size_t)s->in_w + (size_t)iw;
            const float *wp = w + ((size_t)(g * cg_in) * (size_t)cg_out + (size_t)ocg) * k_plane +
                              (size_t)kh * (size_t)s->k_w + (size_t)kw;
            for (int32_t ic = 0; ic < cg_in; ++ic) {
              acc += xp[(size_t)ic * in_plane] * wp[(size_t)ic * (size_t)cg_out * k_plane];
            }
          }
        }
        *y++ = acc;
      }
    }
  }
}
