#ifndef MX_CM_CONV_ARGS_H
#define MX_CM_CONV_ARGS_H
/* What the 2-D cortex_m ops share. Each comes in two spellings that differ only in how the NHWC activations
 * are described: `quantized_conv2d` (sizes [N, C, H, W] in channels-last dim order, ExecuTorch's default
 * lowering) and `quantized_conv2d_nhwc` (sizes [N, H, W, C], contiguous, its explicit-layout lowering);
 * the bytes and the CMSIS-NN call are the same, so each pair of kernels shares one body (`nhwc` flag). */
#include "arm_nnfunctions.h"
#include "mx_cm_args.h"

/* torch's output length of a convolution or pooling window along one axis (symmetric padding);
 * ceil_mode drops a last window that would start in the padding. Arguments within the loader's ranges: size
 * >= 0, kernel, stride and dilation in [1, MX_CM_PARAM_MAX], pad in [0, MX_CM_PARAM_MAX]. */
int64_t mx_cm_window_out(int32_t size, int32_t kernel, int32_t stride, int32_t pad, int32_t dilation, bool ceil_mode);

/* The arguments of both convolutions: offsets, stride/padding/dilation (h, w), per-channel requantization,
 * clamp, scratch, and the filter as CMSIS-NN dims (conv [C_out, KH, KW, C_in / groups], depthwise
 * [1, KH, KW, C_out]). */
typedef struct mx_cm_conv {
  mx_tensor *in, *w, *scratch, *out;
  cmsis_nn_dims in_dims, out_dims, filter;
  int32_t stride[2], pad[2], dil[2], in_off, out_off, act_min, act_max, ch_mult;
  int32_t *mult, *shift, *bias_data;
} mx_cm_conv;

/* Load time: the shared arguments checked (shifts in [-31, 31], the output size torch gives), then read into
 * c. `dw` 1: the depthwise schema (depth_multiplier after dilation), 0: the convolution's; `nhwc`: the
 * *_nhwc spelling. Each convolution's check adds its filter, bias and scratch rules (mx_cm_conv2d.c,
 * mx_cm_depthwise_conv2d.c: kept apart, since a model's firmware defines only the buffer-size functions
 * of the convolutions it has). */
mx_arg_error mx_cm_conv_check(mx_value *const *args, uint32_t dw, bool nhwc, mx_cm_conv *c);
/* Execution: the arguments read without checks. */
void mx_cm_conv_read(mx_value *const *args, uint32_t dw, bool nhwc, mx_cm_conv *c);

/* CMSIS-NN's parameters of a convolution and of a depthwise convolution. */
cmsis_nn_conv_params mx_cm_conv_params(const mx_cm_conv *c);
cmsis_nn_dw_conv_params mx_cm_dw_conv_params(const mx_cm_conv *c);

#define MX_CM_PARAM_MAX (1 << 16)

#endif
