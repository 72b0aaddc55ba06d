/* Depthwise with channel multiplier 1 (CMSIS-NN's "opt" kernel: any kernel, stride and padding). Ours
 * works in place and ignores the scratch CMSIS-NN's version asks for, so the two share one arena plan. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_depthwise_conv_s8_opt(const cmsis_nn_context *ctx,
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
    if (input_dims->c != output_dims->c) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    arm_nn_dw_conv_ch_mult1_s8(dw_conv_params, quant_params, input_dims, input_data, filter_dims, filter_data,
                               bias_data, output_dims, output_data);
    return ARM_CMSIS_NN_SUCCESS;
}
