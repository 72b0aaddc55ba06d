/* Declarations of the int8 elementwise, pooling, softmax, lookup-table, pad and transpose kernels.
 * Names, argument order and semantics follow CMSIS-NN's public API (arm_nnfunctions.h of CMSIS-NN v7.x),
 * so the real library links in their place; arm_quantized_activation_s8 is ours (CMSIS-NN has no int8
 * table-lookup op) and is named after ExecuTorch's cortex_m::quantized_activation. */
#ifndef ARM_NNFUNCTIONS_MISC_H
#define ARM_NNFUNCTIONS_MISC_H

#include <stdint.h>

#include "arm_nn_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = clamp(requant(requant((in1 + off1) << left_shift, m1, s1) + requant((in2 + off2) << left_shift, m2, s2),
 *                     out_mult, out_shift) + out_offset, act_min, act_max); same-shape operands only. */
arm_cmsis_nn_status arm_elementwise_add_s8(const int8_t *input_1_vect,
                                           const int8_t *input_2_vect,
                                           const int32_t input_1_offset,
                                           const int32_t input_1_mult,
                                           const int32_t input_1_shift,
                                           const int32_t input_2_offset,
                                           const int32_t input_2_mult,
                                           const int32_t input_2_shift,
                                           const int32_t left_shift,
                                           int8_t *output,
                                           const int32_t out_offset,
                                           const int32_t out_mult,
                                           const int32_t out_shift,
                                           const int32_t out_activation_min,
                                           const int32_t out_activation_max,
                                           const int32_t block_size);

/* out = clamp(requant((in1 + off1) * (in2 + off2), out_mult, out_shift) + out_offset, act_min, act_max). */
arm_cmsis_nn_status arm_elementwise_mul_s8(const int8_t *input_1_vect,
                                           const int8_t *input_2_vect,
                                           const int32_t input_1_offset,
                                           const int32_t input_2_offset,
                                           int8_t *output,
                                           const int32_t out_offset,
                                           const int32_t out_mult,
                                           const int32_t out_shift,
                                           const int32_t out_activation_min,
                                           const int32_t out_activation_max,
                                           const int32_t block_size);

/* out = max(in1, in2) / min(in1, in2) elementwise over NHWC dims, an input repeated along its dims of size 1
 * (operands and output share one quantization). ctx is unused. */
arm_cmsis_nn_status arm_maximum_s8(const cmsis_nn_context *ctx,
                                   const int8_t *input_1_data,
                                   const cmsis_nn_dims *input_1_dims,
                                   const int8_t *input_2_data,
                                   const cmsis_nn_dims *input_2_dims,
                                   int8_t *output_data,
                                   const cmsis_nn_dims *output_dims);

arm_cmsis_nn_status arm_minimum_s8(const cmsis_nn_context *ctx,
                                   const int8_t *input_1_data,
                                   const cmsis_nn_dims *input_1_dims,
                                   const int8_t *input_2_data,
                                   const cmsis_nn_dims *input_2_dims,
                                   int8_t *output_data,
                                   const cmsis_nn_dims *output_dims);

/* NHWC max pooling; windows are clipped to the input (padding never wins). ctx is unused. */
arm_cmsis_nn_status arm_max_pool_s8(const cmsis_nn_context *ctx,
                                    const cmsis_nn_pool_params *pool_params,
                                    const cmsis_nn_dims *input_dims,
                                    const int8_t *input_data,
                                    const cmsis_nn_dims *filter_dims,
                                    const cmsis_nn_dims *output_dims,
                                    int8_t *output_data);

/* NHWC average pooling over the valid part of each window, rounding half away from zero. The DSP path
 * needs ctx->buf of arm_avgpool_s8_get_buffer_size() bytes. */
arm_cmsis_nn_status arm_avgpool_s8(const cmsis_nn_context *ctx,
                                   const cmsis_nn_pool_params *pool_params,
                                   const cmsis_nn_dims *input_dims,
                                   const int8_t *input_data,
                                   const cmsis_nn_dims *filter_dims,
                                   const cmsis_nn_dims *output_dims,
                                   int8_t *output_data);
/* Scratch bytes for the build it is compiled in; the _dsp/_mve forms answer for a target from the host. */
int32_t arm_avgpool_s8_get_buffer_size(const int dim_dst_width, const int ch_src);
int32_t arm_avgpool_s8_get_buffer_size_dsp(const int dim_dst_width, const int ch_src);
int32_t arm_avgpool_s8_get_buffer_size_mve(const int dim_dst_width, const int ch_src);

/* Softmax over rows of row_size; (mult, shift, diff_min) as TFLite's PreprocessSoftmaxScaling gives them.
 * Output scale 1/256, zero point -128. */
void arm_softmax_s8(const int8_t *input,
                    const int32_t num_rows,
                    const int32_t row_size,
                    const int32_t mult,
                    const int32_t shift,
                    const int32_t diff_min,
                    int8_t *output);

/* out[i] = lut[in[i] + 128]: sigmoid, tanh, hardswish... precomputed as 256 int8 entries on the host. */
arm_cmsis_nn_status arm_quantized_activation_s8(const int8_t *input,
                                                const int8_t *lut,
                                                int8_t *output,
                                                const int32_t block_size);

/* Pads an NHWC tensor with pad_value: output dims = pre_pad + input_size + post_pad per dimension. */
arm_cmsis_nn_status arm_pad_s8(const int8_t *input,
                               int8_t *output,
                               const int8_t pad_value,
                               const cmsis_nn_dims *input_size,
                               const cmsis_nn_dims *pre_pad,
                               const cmsis_nn_dims *post_pad);

/* output = input.transpose(perm) for 1 to 4 dimensions held in the leading fields of n, h, w, c. */
arm_cmsis_nn_status arm_transpose_s8(const int8_t *input,
                                     int8_t *const output,
                                     const cmsis_nn_dims *const input_dims,
                                     const cmsis_nn_dims *const output_dims,
                                     const cmsis_nn_transpose_params *const transpose_params);

#ifdef __cplusplus
}
#endif

#endif /* ARM_NNFUNCTIONS_MISC_H */
