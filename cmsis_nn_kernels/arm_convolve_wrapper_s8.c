/* Runs the fastest int8 convolution the parameters allow, with the same choice as CMSIS-NN's wrapper
 * (and as arm_convolve_wrapper_s8_get_buffer_size, which sizes the scratch for that choice). */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_convolve_wrapper_s8(const cmsis_nn_context *ctx,
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
    const cmsis_nn_conv_params *p = conv_params;
    const int grouped = filter_dims->c != input_dims->c;
    if (!grouped && p->padding.w == 0 && p->padding.h == 0 && filter_dims->w == 1 && filter_dims->h == 1 &&
        p->dilation.w == 1 && p->dilation.h == 1) {
        if (p->stride.w == 1 && p->stride.h == 1) {
            return arm_convolve_1x1_s8_fast(ctx, conv_params, quant_params, input_dims, input_data, filter_dims,
                                            filter_data, bias_dims, bias_data, output_dims, output_data);
        }
        return arm_convolve_1x1_s8(ctx, conv_params, quant_params, input_dims, input_data, filter_dims, filter_data,
                                   bias_dims, bias_data, output_dims, output_data);
    }
    if (!grouped && input_dims->h == 1 && p->dilation.w == 1 && filter_dims->h == 1 &&
        (p->stride.w * input_dims->c) % 4 == 0) {
        return arm_convolve_1_x_n_s8(ctx, conv_params, quant_params, input_dims, input_data, filter_dims, filter_data,
                                     bias_dims, bias_data, output_dims, output_data);
    }
    return arm_convolve_s8(ctx, conv_params, quant_params, input_dims, input_data, filter_dims, filter_data, bias_dims,
                           bias_data, NULL, output_dims, output_data);
}
