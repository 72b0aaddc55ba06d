#include "mx_upsample2d.h"

#include "mx_tensor_util.h"

/* A size torch would compute for in * scale: static_cast<int64_t>(double). */
static bool scaled_size(int32_t in, double scale, int32_t *out) {
  const double s = (double)in * scale;
  if (!(scale > 0.0) || !(s < 2147483648.0)) return false;
  *out = (int32_t)s;
  return true;
}

mx_error mx_upsample2d_check(mx_value *const *args, uint32_t input_i, uint32_t output_size_i, uint32_t scale_factors_i,
                             uint32_t out_i, mx_dtype dtype, uint32_t *bad) {
  const mx_tensor *in = mx_arg_tensor(args, input_i), *out = mx_arg_tensor(args, out_i);
  *bad = input_i;
  MX_TRY(mx_check_tensor(in, dtype));
  *bad = out_i;
  MX_TRY(mx_check_tensor(out, dtype));
  *bad = input_i;
  const uint32_t r = in->dim;
  if (r != 4) return MX_ERR_BAD_SHAPE; /* torch's 2-D upsampling takes NCHW only */
  const bool has_size = !mx_arg_none(args, output_size_i), has_scales = !mx_arg_none(args, scale_factors_i);
  *bad = output_size_i;
  if (has_size == has_scales) return MX_ERR_BAD_ARG_VALUE;
  int32_t sizes[4] = {in->sizes[0], in->sizes[1], 0, 0};
  if (has_size) {
    const mx_int_list *l = mx_arg_int_list(args, output_size_i);
    if (l->len != 2) return MX_ERR_BAD_ARG_VALUE;
    for (uint32_t a = 0; a < 2; ++a) {
      if (l->items[a] < 1 || l->items[a] > INT32_MAX) return MX_ERR_BAD_ARG_VALUE;
      sizes[r - 2 + a] = (int32_t)l->items[a];
    }
  } else {
    *bad = scale_factors_i;
    const mx_value *v = args[scale_factors_i];
    if (v->u.doubles.len != 2) return MX_ERR_BAD_ARG_VALUE;
    for (uint32_t a = 0; a < 2; ++a) {
      if (!scaled_size(in->sizes[r - 2 + a], v->u.doubles.items[a], &sizes[r - 2 + a])) return MX_ERR_BAD_ARG_VALUE;
    }
  }
  *bad = input_i;
  if (out->numel != 0 && (in->sizes[r - 2] == 0 || in->sizes[r - 1] == 0)) return MX_ERR_BAD_SHAPE;
  *bad = out_i;
  return mx_check_sizes(out, sizes, r);
}

float mx_upsample2d_scale(mx_value *const *args, uint32_t scale_factors_i, int32_t in, int32_t out, uint32_t a) {
  if (!mx_arg_none(args, scale_factors_i)) {
    return (float)(1.0 / args[scale_factors_i]->u.doubles.items[a]);
  }
  return (float)in / (float)out;
}
