/* Every output pixel of a channel-multiplier-1 depthwise convolution, batch by batch: in runs of output rows where
 * arm_nn_dw_conv_runs_fit (MVE and DSP, channels enough for a vector, a kernel that fits the tap table), else pixel
 * by pixel. The body of the 3x3 and "opt" kernels and of the general one at multiplier 1. */
#include "arm_nnsupportfunctions.h"

void arm_nn_dw_conv_ch_mult1_s8(const cmsis_nn_dw_conv_params *dw_conv_params,
                                const cmsis_nn_per_channel_quant_params *quant_params,
                                const cmsis_nn_dims *input_dims,
                                const int8_t *input_data,
                                const cmsis_nn_dims *filter_dims,
                                const int8_t *filter_data,
                                const int32_t *bias_data,
                                const cmsis_nn_dims *output_dims,
                                int8_t *output_data)
{
    if (arm_nn_dw_conv_runs_fit(dw_conv_params, input_dims, filter_dims)) {
        arm_nn_dw_conv_ch_mult1_runs_s8(dw_conv_params, quant_params, input_dims, input_data, filter_dims, filter_data,
                                        bias_data, output_dims, output_data);
    } else {
        arm_nn_dw_conv_ch_mult1_pixels_s8(dw_conv_params, quant_params, input_dims, input_data, filter_dims,
                                          filter_data, bias_data, output_dims, output_data);
    }
}
