/* Runs the fastest int8 depthwise convolution the parameters allow, with CMSIS-NN's wrapper's choice
 * (3x3 kernel is skipped on MVE, where CMSIS-NN's opt kernel is faster). */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_depthwise_conv_wrapper_s8(const cmsis_nn_context *ctx,
                                                  const cmsis_nn_dw_conv_params *dw_conv_params,
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
    const cmsis_nn_dw_conv_params *p = dw_conv_params;
    if (p->ch_mult == 1 && input_dims->n == 1 && p->dilation.w == 1 && p->dilation.h == 1) {
#if !defined(ARM_NN_USE_MVE)
        if (filter_dims->w == 3 && filter_dims->h == 3 && p->padding.h <= 1 && p->padding.w <= 1) {
            return arm_depthwise_conv_3x3_s8(ctx, dw_conv_params, quant_params, input_dims, input_data, filter_dims,
                                             filter_data, bias_dims, bias_data, output_dims, output_data);
        }
#endif
        return arm_depthwise_conv_s8_opt(ctx, dw_conv_params, quant_params, input_dims, input_data, filter_dims,
                                         filter_data, bias_dims, bias_data, output_dims, output_data);
    }
    return arm_depthwise_conv_s8(ctx, dw_conv_params, quant_params, input_dims, input_data, filter_dims, filter_data,
                                 bias_dims, bias_data, output_dims, output_data);
}
