/* 1x1 convolution, stride 1, no padding: every input pixel is already a GEMM row, so no scratch. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_convolve_1x1_s8_fast(const cmsis_nn_context *ctx,
                                             const cmsis_nn_conv_params *conv_params,
                                             const cmsis_nn_per_channel_quant_params *quant_params,
                                             const cmsis_nn_dims *input_dims,
                                             const int8_t *input_data,
                                             const cmsis_nn_dims *filter_dims,
                                             const int8_t *filter_data,
                                             const cmsis_nn_dims *bias_dims,
                                             const int32_t *bias_data,
                                             const cmsis_nn_dims *output_dims,
                                             int8_t *output_data)
{
    (void)ctx;
    (void)bias_dims;
    if (conv_params->padding.w != 0 || conv_params->padding.h != 0 || conv_params->stride.w != 1 ||
        conv_params->stride.h != 1 || filter_dims->w != 1 || filter_dims->h != 1 || filter_dims->c != input_dims->c) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    const int32_t rows = input_dims->n * input_dims->h * input_dims->w;
    return arm_nn_mat_mult_nt_t_s8(input_data, filter_data, bias_data, output_data, quant_params->multiplier,
                                   quant_params->shift, rows, output_dims->c, input_dims->c, conv_params->input_offset,
                                   conv_params->output_offset, conv_params->activation.min, conv_params->activation.max,
                                   output_dims->c, input_dims->c);
}
