/* Public API of the int8 kernels: CMSIS-NN v7.x names and signatures, so Arm's CMSIS-NN library can be
 * linked instead of ours without touching a caller. Arrays are NHWC; conv filters [C_OUT, H, W, C_IN];
 * depthwise filters [1, H, W, C_OUT]; fully-connected filters [C_OUT, C_IN] with filter_dims
 * {n = C_IN (accumulation depth), c = C_OUT}. Every kernel that needs scratch has a _get_buffer_size;
 * the _dsp / _mve variants give the size for that ISA whatever the compiling host is (the exporter). */
#ifndef ARM_NNFUNCTIONS_H
#define ARM_NNFUNCTIONS_H

#include <stdint.h>

#include "arm_nn_math_types.h"
#include "arm_nn_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ARM_NN_CONV_ARGS                                                                            \
    const cmsis_nn_context *ctx, const cmsis_nn_conv_params *conv_params,                           \
        const cmsis_nn_per_channel_quant_params *quant_params, const cmsis_nn_dims *input_dims,     \
        const int8_t *input_data, const cmsis_nn_dims *filter_dims, const int8_t *filter_data,      \
        const cmsis_nn_dims *bias_dims, const int32_t *bias_data, const cmsis_nn_dims *output_dims, \
        int8_t *output_data

#define ARM_NN_DW_CONV_ARGS                                                                         \
    const cmsis_nn_context *ctx, const cmsis_nn_dw_conv_params *dw_conv_params,                     \
        const cmsis_nn_per_channel_quant_params *quant_params, const cmsis_nn_dims *input_dims,     \
        const int8_t *input_data, const cmsis_nn_dims *filter_dims, const int8_t *filter_data,      \
        const cmsis_nn_dims *bias_dims, const int32_t *bias_data, const cmsis_nn_dims *output_dims, \
        int8_t *output_data

/* ---- convolution ---- */

/* Picks arm_convolve_1x1_s8_fast (1x1, stride 1, no padding), arm_convolve_1x1_s8 (1x1 strided, no
 * padding), arm_convolve_1_x_n_s8 (H == 1, filter H == 1, dilation.w 1, stride.w * C_IN % 4 == 0) or
 * arm_convolve_s8, as CMSIS-NN's wrapper does. Grouped filters (filter C < input C) go to arm_convolve_s8. */
arm_cmsis_nn_status arm_convolve_wrapper_s8(ARM_NN_CONV_ARGS);
int32_t arm_convolve_wrapper_s8_get_buffer_size(const cmsis_nn_conv_params *conv_params,
                                                const cmsis_nn_dims *input_dims,
                                                const cmsis_nn_dims *filter_dims,
                                                const cmsis_nn_dims *output_dims);
int32_t arm_convolve_wrapper_s8_get_buffer_size_dsp(const cmsis_nn_conv_params *conv_params,
                                                    const cmsis_nn_dims *input_dims,
                                                    const cmsis_nn_dims *filter_dims,
                                                    const cmsis_nn_dims *output_dims);
int32_t arm_convolve_wrapper_s8_get_buffer_size_mve(const cmsis_nn_conv_params *conv_params,
                                                    const cmsis_nn_dims *input_dims,
                                                    const cmsis_nn_dims *filter_dims,
                                                    const cmsis_nn_dims *output_dims);

/* General convolution: any kernel, stride, padding, dilation; groups = C_IN / filter C. */
/* CMSIS-NN v7's signature: upscale_dims (NULL, or h/w of 1 or 2) reads input_dims as the input upscaled by
 * zeros inserted after every row / column (a transposed convolution's input); the data holds in_h >> 1 rows
 * (in_w >> 1 columns) where upscaled by 2. */
arm_cmsis_nn_status arm_convolve_s8(const cmsis_nn_context *ctx,
                                    const cmsis_nn_conv_params *conv_params,
                                    const cmsis_nn_per_channel_quant_params *quant_params,
                                    const cmsis_nn_dims *input_dims,
                                    const int8_t *input_data,
                                    const cmsis_nn_dims *filter_dims,
                                    const int8_t *filter_data,
                                    const cmsis_nn_dims *bias_dims,
                                    const int32_t *bias_data,
                                    const cmsis_nn_dims *upscale_dims,
                                    const cmsis_nn_dims *output_dims,
                                    int8_t *output_data);
int32_t arm_convolve_s8_get_buffer_size(const cmsis_nn_dims *input_dims, const cmsis_nn_dims *filter_dims);
int32_t arm_convolve_s8_get_buffer_size_dsp(const cmsis_nn_dims *input_dims, const cmsis_nn_dims *filter_dims);
int32_t arm_convolve_s8_get_buffer_size_mve(const cmsis_nn_dims *input_dims, const cmsis_nn_dims *filter_dims);

/* 1x1 kernel, stride 1, no padding (CMSIS-NN documents C_IN % 4 == 0; ours takes any C_IN). No scratch. */
arm_cmsis_nn_status arm_convolve_1x1_s8_fast(ARM_NN_CONV_ARGS);
int32_t arm_convolve_1x1_s8_fast_get_buffer_size(const cmsis_nn_dims *input_dims);

/* 1x1 kernel, any stride, no padding. No scratch. */
arm_cmsis_nn_status arm_convolve_1x1_s8(ARM_NN_CONV_ARGS);

/* 1xN: input H == 1, output H == 1, filter H == 1, dilation.w == 1, stride.w * C_IN % 4 == 0. */
arm_cmsis_nn_status arm_convolve_1_x_n_s8(ARM_NN_CONV_ARGS);
int32_t arm_convolve_1_x_n_s8_get_buffer_size(const cmsis_nn_conv_params *conv_params,
                                              const cmsis_nn_dims *input_dims,
                                              const cmsis_nn_dims *filter_dims,
                                              const cmsis_nn_dims *output_dims);
int32_t arm_convolve_1_x_n_s8_get_buffer_size_mve(const cmsis_nn_conv_params *conv_params,
                                                  const cmsis_nn_dims *input_dims,
                                                  const cmsis_nn_dims *filter_dims,
                                                  const cmsis_nn_dims *output_dims);

/* ---- depthwise convolution ---- */

/* Picks arm_depthwise_conv_3x3_s8 (not on MVE), arm_depthwise_conv_s8_opt or arm_depthwise_conv_s8 as
 * CMSIS-NN's wrapper does. */
arm_cmsis_nn_status arm_depthwise_conv_wrapper_s8(ARM_NN_DW_CONV_ARGS);
int32_t arm_depthwise_conv_wrapper_s8_get_buffer_size(const cmsis_nn_dw_conv_params *dw_conv_params,
                                                      const cmsis_nn_dims *input_dims,
                                                      const cmsis_nn_dims *filter_dims,
                                                      const cmsis_nn_dims *output_dims);
int32_t arm_depthwise_conv_wrapper_s8_get_buffer_size_dsp(const cmsis_nn_dw_conv_params *dw_conv_params,
                                                          const cmsis_nn_dims *input_dims,
                                                          const cmsis_nn_dims *filter_dims,
                                                          const cmsis_nn_dims *output_dims);
int32_t arm_depthwise_conv_wrapper_s8_get_buffer_size_mve(const cmsis_nn_dw_conv_params *dw_conv_params,
                                                          const cmsis_nn_dims *input_dims,
                                                          const cmsis_nn_dims *filter_dims,
                                                          const cmsis_nn_dims *output_dims);

/* General depthwise: any ch_mult, kernel, stride, padding, dilation, batch. No scratch. */
arm_cmsis_nn_status arm_depthwise_conv_s8(ARM_NN_DW_CONV_ARGS);

/* ch_mult 1, 3x3 kernel, padding <= 1, dilation 1, batch 1. No scratch. */
arm_cmsis_nn_status arm_depthwise_conv_3x3_s8(ARM_NN_DW_CONV_ARGS);

/* ch_mult 1, dilation 1, batch 1. Scratch from arm_depthwise_conv_s8_opt_get_buffer_size (ours needs none
 * but accepts CMSIS-NN's size). */
arm_cmsis_nn_status arm_depthwise_conv_s8_opt(ARM_NN_DW_CONV_ARGS);
int32_t arm_depthwise_conv_s8_opt_get_buffer_size(const cmsis_nn_dims *input_dims, const cmsis_nn_dims *filter_dims);
int32_t arm_depthwise_conv_s8_opt_get_buffer_size_dsp(const cmsis_nn_dims *input_dims,
                                                      const cmsis_nn_dims *filter_dims);
int32_t arm_depthwise_conv_s8_opt_get_buffer_size_mve(const cmsis_nn_dims *input_dims,
                                                      const cmsis_nn_dims *filter_dims);

/* ---- transposed convolution ---- */

/* NHWC, filter [C_OUT, KH, KW, C_IN], per-channel requantization; padding crops the full output's top and
 * left, output_dims give its size (at most (in - 1) * stride + MAX(filter, stride) - padding per axis, the
 * rows Arm's kernel buffers); dilation 1. Arm's kernel needs ctx->buf of
 * arm_transpose_conv_s8_get_buffer_size bytes; ours reads neither ctx nor output_ctx. */
arm_cmsis_nn_status arm_transpose_conv_s8(const cmsis_nn_context *ctx,
                                          const cmsis_nn_context *output_ctx,
                                          const cmsis_nn_transpose_conv_params *transpose_conv_params,
                                          const cmsis_nn_per_channel_quant_params *quant_params,
                                          const cmsis_nn_dims *input_dims,
                                          const int8_t *input_data,
                                          const cmsis_nn_dims *filter_dims,
                                          const int8_t *filter_data,
                                          const cmsis_nn_dims *bias_dims,
                                          const int32_t *bias_data,
                                          const cmsis_nn_dims *output_dims,
                                          int8_t *output_data);
int32_t arm_transpose_conv_s8_get_buffer_size(const cmsis_nn_transpose_conv_params *transpose_conv_params,
                                              const cmsis_nn_dims *input_dims,
                                              const cmsis_nn_dims *filter_dims,
                                              const cmsis_nn_dims *out_dims);

/* ---- fully connected ---- */

/* Per-tensor requantized [N, C_IN] x [C_OUT, C_IN]^T + bias. On MVE ctx->buf must hold the kernel sums
 * from arm_vector_sum_s8(buf, C_IN, C_OUT, filter, input_offset, filter_offset, bias) (computed once,
 * ahead of time) and bias is not read; elsewhere ctx is not read. */
arm_cmsis_nn_status arm_fully_connected_s8(const cmsis_nn_context *ctx,
                                           const cmsis_nn_fc_params *fc_params,
                                           const cmsis_nn_per_tensor_quant_params *quant_params,
                                           const cmsis_nn_dims *input_dims,
                                           const int8_t *input_data,
                                           const cmsis_nn_dims *filter_dims,
                                           const int8_t *filter_data,
                                           const cmsis_nn_dims *bias_dims,
                                           const int32_t *bias_data,
                                           const cmsis_nn_dims *output_dims,
                                           int8_t *output_data);
int32_t arm_fully_connected_s8_get_buffer_size(const cmsis_nn_dims *filter_dims);
int32_t arm_fully_connected_s8_get_buffer_size_dsp(const cmsis_nn_dims *filter_dims);
int32_t arm_fully_connected_s8_get_buffer_size_mve(const cmsis_nn_dims *filter_dims);

/* arm_fully_connected_s8 with one multiplier and shift per output channel (quant_params arrays of C_OUT):
 * every channel and batch in one call. Same scratch contract: size from
 * arm_fully_connected_s8_get_buffer_size, on MVE ctx->buf holds the arm_vector_sum_s8 kernel sums. */
arm_cmsis_nn_status arm_fully_connected_per_channel_s8(const cmsis_nn_context *ctx,
                                                       const cmsis_nn_fc_params *fc_params,
                                                       const cmsis_nn_per_channel_quant_params *quant_params,
                                                       const cmsis_nn_dims *input_dims,
                                                       const int8_t *input_data,
                                                       const cmsis_nn_dims *filter_dims,
                                                       const int8_t *filter_data,
                                                       const cmsis_nn_dims *bias_dims,
                                                       const int32_t *bias_data,
                                                       const cmsis_nn_dims *output_dims,
                                                       int8_t *output_data);

/* vector_sum_buf[r] = lhs_offset * sum_c (vector_data[r, c] + rhs_offset) + (bias_data ? bias_data[r] : 0). */
arm_cmsis_nn_status arm_vector_sum_s8(int32_t *vector_sum_buf,
                                      int32_t vector_cols,
                                      int32_t vector_rows,
                                      const int8_t *vector_data,
                                      int32_t lhs_offset,
                                      int32_t rhs_offset,
                                      const int32_t *bias_data);

/* Batch matmul: lhs [n, h, w, c] x rhs [n, h, w', c]^T -> [n, h, w, w'] (a batch dim of 1 broadcasts),
 * per-tensor requantization, offsets in bmm_params->fc_params (filter_offset is the rhs offset). On MVE
 * ctx->buf holds arm_fully_connected_s8_get_buffer_size(output_dims) bytes of kernel sums. */
arm_cmsis_nn_status arm_batch_matmul_s8(const cmsis_nn_context *ctx,
                                        const cmsis_nn_bmm_params *bmm_params,
                                        const cmsis_nn_per_tensor_quant_params *quant_params,
                                        const cmsis_nn_dims *input_lhs_dims,
                                        const int8_t *input_lhs,
                                        const cmsis_nn_dims *input_rhs_dims,
                                        const int8_t *input_rhs,
                                        const cmsis_nn_dims *output_dims,
                                        int8_t *output);

#undef ARM_NN_CONV_ARGS
#undef ARM_NN_DW_CONV_ARGS

#ifdef __cplusplus
}
#endif

#include "arm_nnfunctions_misc.h"

#endif /* ARM_NNFUNCTIONS_H */
