/* 1x1 convolution with any stride and no padding: each output row is a GEMM over input pixels
 * stride.w apart, read in place (no scratch). */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_convolve_1x1_s8(const cmsis_nn_context *ctx,
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
    if (conv_params->padding.w != 0 || conv_params->padding.h != 0 || filter_dims->w != 1 || filter_dims->h != 1 ||
        filter_dims->c != input_dims->c) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    const int32_t in_c = input_dims->c, out_c = output_dims->c;
    for (int32_t b = 0; b < input_dims->n; b++) {
        for (int32_t oy = 0; oy < output_dims->h; oy++) {
            const int8_t *in = input_data + ((b * input_dims->h + oy * conv_params->stride.h) * input_dims->w) * in_c;
            int8_t *out = output_data + ((b * output_dims->h + oy) * output_dims->w) * out_c;
            arm_nn_mat_mult_nt_t_s8(in, filter_data, bias_data, out, quant_params->multiplier, quant_params->shift,
                                    output_dims->w, out_c, in_c, conv_params->input_offset, conv_params->output_offset,
                                    conv_params->activation.min, conv_params->activation.max, out_c,
                                    conv_params->stride.w * in_c);
        }
    }
    return ARM_CMSIS_NN_SUCCESS;
}
