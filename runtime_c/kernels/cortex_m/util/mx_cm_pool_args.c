#include "mx_cm_pool_args.h"
#include "mx_cm_rows.h"

#define AVG(name) MX_ARG_cortex_m_quantized_avg_pool2d_##name
#define MAX(name) MX_ARG_cortex_m_quantized_max_pool2d_##name

_Static_assert(AVG(input) == MAX(input) && AVG(kernel_size) == MAX(kernel_size) && AVG(stride) == MAX(stride) &&
                   AVG(padding) == MAX(padding),
               "both poolings lead with input, kernel_size, stride, padding");
_Static_assert(AVG(stride) == AVG(kernel_size) + 1 && AVG(padding) == AVG(kernel_size) + 2,
               "the window's pairs in a row");
_Static_assert(MX_NARGS_cortex_m_quantized_avg_pool2d == MX_NARGS_cortex_m_quantized_avg_pool2d_nhwc &&
                   AVG(out) == MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_out &&
                   MX_NARGS_cortex_m_quantized_max_pool2d == MX_NARGS_cortex_m_quantized_max_pool2d_nhwc &&
                   MAX(out) == MX_ARG_cortex_m_quantized_max_pool2d_nhwc_out,
               "each *_nhwc pooling has its twin's arguments");

void mx_cm_pool_read(mx_value *const *args, uint32_t out_i, bool nhwc, mx_cm_pool *p) {
  p->in = mx_arg_tensor(args, AVG(input));
  p->out = mx_arg_tensor(args, out_i);
  p->in_dims = mx_cm_nhwc(p->in, nhwc);
  p->out_dims = mx_cm_nhwc(p->out, nhwc);
  mx_cm_pair(mx_arg_int_list(args, AVG(kernel_size)), p->kernel);
  mx_cm_pair(mx_arg_int_list(args, AVG(stride)), p->stride);
  mx_cm_pair(mx_arg_int_list(args, AVG(padding)), p->pad);
}

mx_arg_error mx_cm_pool_check(mx_value *const *args, uint32_t out_i, bool nhwc, bool ceil_mode, mx_cm_pool *p) {
  for (uint32_t i = AVG(kernel_size); i <= AVG(padding); ++i) {
    MX_CHECK(i, mx_cm_pair_check(mx_arg_int_list(args, i)));
  }
  MX_TRY(mx_cm_nhwc_arg(args, AVG(input), nhwc));
  MX_TRY(mx_cm_nhwc_arg(args, out_i, nhwc));
  mx_cm_pool_read(args, out_i, nhwc, p);
  for (int i = 0; i < 2; ++i) {
    /* torch's rule; it also keeps every window on at least one input */
    MX_REFUSE_IF(2 * p->pad[i] > p->kernel[i], AVG(padding), MX_ERR_BAD_ARG_VALUE);
  }
  MX_REFUSE_IF(
      p->out_dims.n != p->in_dims.n || p->out_dims.c != p->in_dims.c ||
          p->out_dims.h != mx_cm_window_out(p->in_dims.h, p->kernel[0], p->stride[0], p->pad[0], 1, ceil_mode) ||
          p->out_dims.w != mx_cm_window_out(p->in_dims.w, p->kernel[1], p->stride[1], p->pad[1], 1, ceil_mode),
      out_i, MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_cm_rows mx_cm_pool_geometry(const mx_cm_pool *p) {
  return (mx_cm_rows){p->in_dims, p->out_dims, p->stride[0], p->pad[0], p->kernel[0], 0, 0};
}

bool mx_cm_pool_overlap(mx_value *const *args, uint32_t arg, uint32_t out_i, bool nhwc) {
  mx_cm_pool p;
  mx_cm_pool_read(args, out_i, nhwc, &p);
  const mx_cm_rows r = mx_cm_pool_geometry(&p);
  return mx_cm_rows_overlap(&r, arg, p.in->data, p.out->data, NULL, NULL);
}
