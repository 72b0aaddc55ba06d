/* aten::upsample_nearest2d.vec_out for NCHW tensors of any dtype: (input, output_size, scale_factors, out, ret).
 * Output index i reads input min(floor(i * scale), in - 1), torch's "nearest" (not "nearest-exact"), with
 * torch's exact cases: the same size copies and twice the size halves the index, whatever the float scale.
 * It only moves elements, so int8 programs run it on the quantized bytes (the output shares the input's scale
 * and zero point). */
#include <math.h>
#include <string.h>

#include "util/mx_tensor_util.h"
#include "util/mx_upsample2d.h"

#define A(name) MX_ARG_aten_upsample_nearest2d_##name

mx_arg_error mx_k_aten_upsample_nearest2d_vec_out_check(mx_value *const *args) {
  const mx_dtype dtype = (mx_dtype)mx_arg_tensor(args, A(input))->dtype;
  uint32_t bad = 0;
  MX_CHECK(bad, mx_upsample2d_check(args, A(input), A(output_size), A(scale_factors), A(out), dtype, &bad));
  return MX_OK;
}

static int32_t source_index(int32_t i, int32_t in, int32_t out, float scale) {
  if (out == in) {
    return i;
  }
  if (out == 2 * in) {
    return i >> 1;
  }
  const int32_t s = (int32_t)floorf((float)i * scale);
  return s < in - 1 ? s : in - 1;
}

mx_error mx_k_aten_upsample_nearest2d_vec_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *out = mx_arg_tensor(args, A(out));
  const uint32_t r = in->dim;
  const int32_t IH = in->sizes[r - 2], IW = in->sizes[r - 1], OH = out->sizes[r - 2], OW = out->sizes[r - 1];
  const float scale_h = mx_upsample2d_scale(args, A(scale_factors), IH, OH, 0);
  const float scale_w = mx_upsample2d_scale(args, A(scale_factors), IW, OW, 1);
  const uint32_t planes = mx_size_prod(in->sizes, 0, r - 2);
  const size_t size = mx_dtype_size(in->dtype);
  uint8_t *y = (uint8_t *)out->data;
  for (uint32_t plane = 0; plane < planes; ++plane) {
    const uint8_t *xp = (const uint8_t *)in->data + (size_t)plane * (size_t)IH * (size_t)IW * size;
    for (int32_t oh = 0; oh < OH; ++oh) {
      const uint8_t *row = xp + (size_t)source_index(oh, IH, OH, scale_h) * (size_t)IW * size;
      for (int32_t ow = 0; ow < OW; ++ow, y += size) {
        memcpy(y, row + (size_t)source_index(ow, IW, OW, scale_w) * size, size);
      }
    }
  }
  return MX_OK;
}
