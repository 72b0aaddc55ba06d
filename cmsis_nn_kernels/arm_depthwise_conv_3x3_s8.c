/* Depthwise 3x3, channel multiplier 1, padding <= 1, dilation 1 (CMSIS-NN's constraints for this
 * kernel; it needs no scratch). Each pixel goes through the shared vectorized pixel helper. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_depthwise_conv_3x3_s8(const cmsis_nn_context *ctx,
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
    (void)ctx;
    (void)bias_dims;
    const cmsis_nn_dw_conv_params *p = dw_conv_params;
    if (input_dims->c != output_dims->c || filter_dims->w != 3 || filter_dims->h != 3 || p->padding.w > 1 ||
        p->padding.h > 1 || p->dilation.w != 1 || p->dilation.h != 1) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    arm_nn_dw_conv_ch_mult1_s8(dw_conv_params, quant_params, input_dims, input_data, filter_dims, filter_data,
                               bias_data, output_dims, output_data);
    return ARM_CMSIS_NN_SUCCESS;
}
